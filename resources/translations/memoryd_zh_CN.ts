<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!--
  Simplified Chinese for memoryd-tray. Hand-maintained; the app compiles it at start-up with
  PySide6's lrelease (never commit a .qm). After changing strings in desktop/memoryd_desktop,
  merge new ones with: lupdate -locations none desktop/memoryd_desktop -extensions py -ts THIS_FILE
  (tests/desktop/test_i18n.py fails while any source string lacks a translation here).
-->
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>Controller</name>
    <message>
        <source>Another memoryd process is already processing captures.</source>
        <translation>另一个 memoryd 进程正在处理捕获内容。</translation>
    </message>
    <message>
        <source>Captures processed: {count}.</source>
        <translation>已处理的捕获：{count}。</translation>
    </message>
    <message>
        <source>Set aside as unusable: {count}.</source>
        <translation>无法使用、已另行存放：{count}。</translation>
    </message>
    <message>
        <source>No captures were waiting.</source>
        <translation>没有待处理的捕获。</translation>
    </message>
    <message>
        <source>Could not open the data folder {path}.</source>
        <translation>无法打开数据文件夹 {path}。</translation>
    </message>
</context>
<context>
    <name>MemoryType</name>
    <message>
        <source>Sessions</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Decisions</source>
        <translation>决策</translation>
    </message>
    <message>
        <source>Preferences</source>
        <translation>偏好</translation>
    </message>
    <message>
        <source>Facts</source>
        <translation>事实</translation>
    </message>
    <message>
        <source>Playbooks</source>
        <translation>操作手册</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>警示</translation>
    </message>
</context>
<context>
    <name>StatusWindow</name>
    <message>
        <source>Data folder: {path}</source>
        <translation>数据文件夹：{path}</translation>
    </message>
</context>
<context>
    <name>TrayState</name>
    <message>
        <source>Reading memories…</source>
        <translation>正在读取记忆…</translation>
    </message>
    <message>
        <source>Memories: {count}</source>
        <translation>记忆：{count}</translation>
    </message>
    <message>
        <source>{type}: {count}</source>
        <translation>{type}：{count}</translation>
    </message>
    <message>
        <source>Forgotten: {count}</source>
        <translation>已遗忘：{count}</translation>
    </message>
    <message>
        <source>Captures waiting: {count}</source>
        <translation>待处理的捕获：{count}</translation>
    </message>
    <message>
        <source>Could not read memoryd: {error}</source>
        <translation>无法读取 memoryd：{error}</translation>
    </message>
    <message>
        <source>Processing captures…</source>
        <translation>正在处理捕获…</translation>
    </message>
    <message>
        <source>Process captures now</source>
        <translation>立即处理捕获</translation>
    </message>
    <message>
        <source>Open data folder</source>
        <translation>打开数据文件夹</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
</context>
</TS>

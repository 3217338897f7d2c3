<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!--
  Simplified Chinese for memoryd-tray. Hand-maintained; the app compiles it at start-up with
  PySide6's lrelease (never commit a .qm). After changing strings in desktop/memoryd_desktop,
  merge new ones with (lupdate drops this comment: put it back):
    lupdate -no-obsolete -locations none desktop/memoryd_desktop -extensions py -ts THIS_FILE
  (tests/desktop/test_tray_i18n.py fails while any source string lacks a translation here).
-->
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>BrowserWindow</name>
    <message>
        <source>Alive</source>
        <translation>活跃</translation>
    </message>
    <message>
        <source>Dim</source>
        <translation>淡化</translation>
    </message>
    <message>
        <source>Soft-forgotten</source>
        <translation>软遗忘</translation>
    </message>
    <message>
        <source>Forgotten</source>
        <translation>已遗忘</translation>
    </message>
    <message>
        <source>Gone</source>
        <translation>已移除</translation>
    </message>
    <message>
        <source>Not part of a supersedes chain.</source>
        <translation>不属于任何取代链。</translation>
    </message>
    <message>
        <source>{mark} {date}  {title}  [{state}]  {slug}</source>
        <translation>{mark} {date}  {title}  [{state}]  {slug}</translation>
    </message>
    <message>
        <source>→ replaced by {slug}</source>
        <translation>→ 已被 {slug} 取代</translation>
    </message>
    <message>
        <source>Supersedes waiting for a decision: {count}</source>
        <translation>待决定的取代：{count}</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <source>Recalls</source>
        <translation>召回次数</translation>
    </message>
    <message>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <source>All projects</source>
        <translation>所有项目</translation>
    </message>
    <message>
        <source>All types</source>
        <translation>所有类型</translation>
    </message>
    <message>
        <source>Alive and dim</source>
        <translation>活跃和淡化</translation>
    </message>
    <message>
        <source>All, with soft-forgotten</source>
        <translation>全部（含软遗忘）</translation>
    </message>
    <message>
        <source>Supersedes chain</source>
        <translation>取代链</translation>
    </message>
    <message>
        <source>Record…</source>
        <translation>记录…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Forget</source>
        <translation>遗忘</translation>
    </message>
    <message>
        <source>Merge…</source>
        <translation>合并…</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Reindex</source>
        <translation>重建索引</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Mark a project sensitive…</source>
        <translation>将项目标记为敏感…</translation>
    </message>
    <message>
        <source>&amp;Memory</source>
        <translation>记忆(&amp;M)</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <source>{count} in {root}</source>
        <translation>{root} 中 {count} 条</translation>
    </message>
    <message>
        <source>Sensitive projects not searched without a grant: {where}</source>
        <translation>未经授权、未搜索的敏感项目：{where}</translation>
    </message>
    <message>
        <source>Memories shown: {count}</source>
        <translation>显示的记忆：{count}</translation>
    </message>
    <message>
        <source>{project} ({count})</source>
        <translation>{project}（{count}）</translation>
    </message>
    <message>
        <source>Already recorded: {title}</source>
        <translation>已经记录过：{title}</translation>
    </message>
    <message>
        <source>Recorded: {title}</source>
        <translation>已记录：{title}</translation>
    </message>
    <message>
        <source>Nothing changed.</source>
        <translation>没有更改。</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>Forget memory</source>
        <translation>遗忘记忆</translation>
    </message>
    <message>
        <source>Forget “{title}”? Agents will no longer recall it.</source>
        <translation>遗忘“{title}”吗？智能体将不再召回它。</translation>
    </message>
    <message>
        <source>Forgotten.</source>
        <translation>已遗忘。</translation>
    </message>
    <message>
        <source>Merged {count} into {title}.</source>
        <translation>已将 {count} 条记忆合并到 {title}。</translation>
    </message>
    <message>
        <source>Reindexed {indexed} of {files} files; skipped {skipped}.</source>
        <translation>已为 {files} 个文件中的 {indexed} 个重建索引；跳过 {skipped} 个。</translation>
    </message>
    <message>
        <source>Reindexing…</source>
        <translation>正在重建索引…</translation>
    </message>
    <message>
        <source>Reindex cancelled: the index is as it was.</source>
        <translation>已取消重建索引：索引保持原样。</translation>
    </message>
    <message>
        <source>Imported {imported}, updated {updated}, unchanged {unchanged}.</source>
        <translation>已导入 {imported} 条，更新 {updated} 条，未变 {unchanged} 条。</translation>
    </message>
    <message>
        <source>Skipped: {count}.</source>
        <translation>已跳过：{count}。</translation>
    </message>
    <message>
        <source>Importing…</source>
        <translation>正在导入…</translation>
    </message>
    <message>
        <source>Import cancelled: what was imported stays; import again to go on.</source>
        <translation>已取消导入：已导入的内容会保留；再次导入即可继续。</translation>
    </message>
    <message>
        <source>{root} is sensitive now: {count} memories encrypted.</source>
        <translation>{root} 现已标记为敏感：已加密 {count} 条记忆。</translation>
    </message>
    <message>
        <source>Encrypting {root}…</source>
        <translation>正在加密 {root}…</translation>
    </message>
    <message>
        <source>Stopped: the project is marked sensitive; run it again to encrypt the rest.</source>
        <translation>已停止：项目已标记为敏感；再次运行即可加密其余记忆。</translation>
    </message>
    <message>
        <source>Grant…</source>
        <translation>授权…</translation>
    </message>
    <message>
        <source>Open Sensitive projects to grant access to this project</source>
        <translation>打开“敏感项目”窗口，为此项目授权</translation>
    </message>
    <message>
        <source>Updated</source>
        <translation>更新时间</translation>
    </message>
    <message>
        <source>Triggers</source>
        <translation>触发词</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>From</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Show raw fields</source>
        <translation>显示原始字段</translation>
    </message>
    <message>
        <source>Learned from a {agent} session of {day}</source>
        <translation>学自 {day} 的 {agent} 会话</translation>
    </message>
    <message>
        <source>Learned from the session of {day}</source>
        <translation>学自 {day} 的会话</translation>
    </message>
    <message>
        <source>A {agent} session, captured as it happened</source>
        <translation>一次 {agent} 会话，在进行中捕获</translation>
    </message>
    <message>
        <source>Recorded directly, not learned from a session</source>
        <translation>直接记录，并非从会话中学到</translation>
    </message>
    <message>
        <source>Imported from {source}</source>
        <translation>导入自 {source}</translation>
    </message>
    <message>
        <source>[image: {name}]</source>
        <translation>[图片：{name}]</translation>
    </message>
    <message>
        <source>Select a memory to read it here.</source>
        <translation>选择一条记忆，在此阅读。</translation>
    </message>
</context>
<context>
    <name>Controller</name>
    <message>
        <source>Scheduled job {job} failed: {error}</source>
        <translation>计划任务 {job} 失败：{error}</translation>
    </message>
    <message>
        <source>promotions ({count})</source>
        <translation>待确认的长期记忆（{count}）</translation>
    </message>
    <message>
        <source>duplicates ({count})</source>
        <translation>重复项（{count}）</translation>
    </message>
    <message>
        <source>expiring ({count})</source>
        <translation>即将过期（{count}）</translation>
    </message>
    <message>
        <source>supersedes to confirm ({count})</source>
        <translation>待确认的取代（{count}）</translation>
    </message>
    <message>
        <source>sync conflicts ({count})</source>
        <translation>同步冲突（{count}）</translation>
    </message>
    <message>
        <source>suspect ({count})</source>
        <translation>可疑记忆（{count}）</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>Waiting in the weekly digest: {kinds}.</source>
        <translation>每周摘要中待你处理：{kinds}。</translation>
    </message>
    <message>
        <source>memoryd weekly digest</source>
        <translation>memoryd 每周摘要</translation>
    </message>
    <message>
        <source>Consolidation done: {summary}</source>
        <translation>整理完成：{summary}</translation>
    </message>
    <message>
        <source>Consolidation finished with errors: {summary}; failed: {errors}</source>
        <translation>整理已结束，但有错误：{summary}；失败：{errors}</translation>
    </message>
    <message>
        <source>The nightly consolidation is overdue: it runs in the background now.</source>
        <translation>夜间整理已逾期：现在正在后台运行。</translation>
    </message>
    <message>
        <source>Capture paused: agent sessions are not kept until you resume.</source>
        <translation>捕获已暂停：恢复之前不会保存智能体会话。</translation>
    </message>
    <message>
        <source>Capture resumed.</source>
        <translation>捕获已恢复。</translation>
    </message>
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
    <message>
        <source>Synced: {sent} sent; no other device has synced through this folder yet.</source>
        <translation>已同步：发送 {sent} 条；尚无其他设备通过此文件夹同步。</translation>
    </message>
    <message>
        <source>Synced with 1 device: {sent} sent, {received} received.</source>
        <translation>已与 1 台设备同步：发送 {sent} 条，接收 {received} 条。</translation>
    </message>
    <message>
        <source>Synced with {devices} devices: {sent} sent, {received} received.</source>
        <translation>已与 {devices} 台设备同步：发送 {sent} 条，接收 {received} 条。</translation>
    </message>
    <message>
        <source>Conflicts to resolve in the weekly review: {count}.</source>
        <translation>需在每周回顾中解决的冲突：{count}。</translation>
    </message>
    <message>
        <source>Sealed memories waiting for their project's key: {count}.</source>
        <translation>等待项目密钥的加密记忆：{count}。</translation>
    </message>
    <message>
        <source>Files that could not be read: {count}.</source>
        <translation>无法读取的文件：{count}。</translation>
    </message>
    <message>
        <source>Sync found new conflicts: {count}. Pick a version in the weekly review.</source>
        <translation>同步发现新的冲突：{count}。请在每周回顾中选择一个版本。</translation>
    </message>
    <message>
        <source>Sync failed: {error}</source>
        <translation>同步失败：{error}</translation>
    </message>
    <message>
        <source>nothing new</source>
        <translation>没有新内容</translation>
    </message>
    <message>
        <source>{job} did not finish: {detail}</source>
        <translation>{job}未能完成：{detail}</translation>
    </message>
    <message>
        <source>{phase}: {error}</source>
        <translation>{phase}：{error}</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
</context>
<context>
    <name>DigestWindow</name>
    <message>
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>决策</translation>
    </message>
    <message>
        <source>Preference</source>
        <translation>偏好</translation>
    </message>
    <message>
        <source>Fact</source>
        <translation>事实</translation>
    </message>
    <message>
        <source>Playbook</source>
        <translation>操作手册</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警示</translation>
    </message>
    <message>
        <source>alive</source>
        <translation>活跃</translation>
    </message>
    <message>
        <source>dim</source>
        <translation>淡化</translation>
    </message>
    <message>
        <source>soft-forgotten</source>
        <translation>软遗忘</translation>
    </message>
    <message>
        <source>forgotten</source>
        <translation>已遗忘</translation>
    </message>
    <message>
        <source>Mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>Left</source>
        <translation>左侧</translation>
    </message>
    <message>
        <source>Right</source>
        <translation>右侧</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>{state} → {next}</source>
        <translation>{state} → {next}</translation>
    </message>
    <message>
        <source>Due</source>
        <translation>到期</translation>
    </message>
    <message>
        <source>Idle days</source>
        <translation>闲置天数</translation>
    </message>
    <message>
        <source>New</source>
        <translation>新记忆</translation>
    </message>
    <message>
        <source>Replaces</source>
        <translation>取代对象</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>D decision-worthy, U useful in future, R recallable hooks, A accurate; 0 to 1 each.</source>
        <translation>D 值得决策参考，U 日后有用，R 有可召回的线索，A 准确；各项取值 0 到 1。</translation>
    </message>
    <message>
        <source>comma separated</source>
        <translation>用逗号分隔</translation>
    </message>
    <message>
        <source>Approve</source>
        <translation>批准</translation>
    </message>
    <message>
        <source>Write it as long-term memory (a in the list)</source>
        <translation>写入长期记忆（在列表中按 a）</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Drop the proposal (r in the list)</source>
        <translation>放弃此提议（在列表中按 r）</translation>
    </message>
    <message>
        <source>Triggers</source>
        <translation>触发词</translation>
    </message>
    <message>
        <source>DURA  D {d}  U {u}  R {r}  A {a}   mean {mean}</source>
        <translation>DURA  D {d}  U {u}  R {r}  A {a}   均值 {mean}</translation>
    </message>
    <message>
        <source>No reasoning given.</source>
        <translation>未给出理由。</translation>
    </message>
    <message>
        <source>Replaces: {slugs}</source>
        <translation>取代：{slugs}</translation>
    </message>
    <message>
        <source>{slug} · {type} · created {day}</source>
        <translation>{slug} · {type} · 创建于 {day}</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Recalled {count} times · triggers: {triggers}</source>
        <translation>召回 {count} 次 · 触发词：{triggers}</translation>
    </message>
    <message>
        <source>Weekly review</source>
        <translation>每周回顾</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Reading the digest…</source>
        <translation>正在读取摘要…</translation>
    </message>
    <message>
        <source>Approve all with a DURA mean of at least</source>
        <translation>一键批准的 DURA 均值下限</translation>
    </message>
    <message>
        <source>j/k move · a approve · r reject</source>
        <translation>j/k 移动 · a 批准 · r 拒绝</translation>
    </message>
    <message>
        <source>No promotions wait for review.</source>
        <translation>没有待确认的长期记忆。</translation>
    </message>
    <message>
        <source>Merge into left</source>
        <translation>合并到左侧</translation>
    </message>
    <message>
        <source>Keep the left memory; the right one is folded into it</source>
        <translation>保留左侧记忆，右侧记忆并入其中</translation>
    </message>
    <message>
        <source>Merge into right</source>
        <translation>合并到右侧</translation>
    </message>
    <message>
        <source>Keep the right memory; the left one is folded into it</source>
        <translation>保留右侧记忆，左侧记忆并入其中</translation>
    </message>
    <message>
        <source>These two belong to different projects. Merging across projects is left to the command line: memoryd merge --force.</source>
        <translation>这两条记忆属于不同项目。跨项目合并请使用命令行：“memoryd merge --force”。</translation>
    </message>
    <message>
        <source>No duplicates found.</source>
        <translation>未发现重复项。</translation>
    </message>
    <message>
        <source>j/k move</source>
        <translation>j/k 移动</translation>
    </message>
    <message>
        <source>Keep</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>Keeping counts as a recall: the memory stays alive and its clock starts again.</source>
        <translation>保留算作一次召回：记忆保持活跃，并重新开始计时。</translation>
    </message>
    <message>
        <source>Nothing is fading this week.</source>
        <translation>本周没有正在淡化的记忆。</translation>
    </message>
    <message>
        <source>j/k move · a keep</source>
        <translation>j/k 移动 · a 保留</translation>
    </message>
    <message>
        <source>Confirm</source>
        <translation>确认</translation>
    </message>
    <message>
        <source>The new memory replaces the old one (a in the list)</source>
        <translation>新记忆取代旧记忆（在列表中按 a）</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>驳回</translation>
    </message>
    <message>
        <source>Both stay current (r in the list)</source>
        <translation>两者都保持有效（在列表中按 r）</translation>
    </message>
    <message>
        <source>No supersedes wait for confirmation.</source>
        <translation>没有待确认的取代。</translation>
    </message>
    <message>
        <source>j/k move · a confirm · r dismiss</source>
        <translation>j/k 移动 · a 确认 · r 驳回</translation>
    </message>
    <message>
        <source>Top triggers</source>
        <translation>热门触发词</translation>
    </message>
    <message>
        <source>Rising entities</source>
        <translation>上升的实体</translation>
    </message>
    <message>
        <source>Recent supersedes</source>
        <translation>近期取代</translation>
    </message>
    <message>
        <source>Recalled most</source>
        <translation>召回最多</translation>
    </message>
    <message>
        <source>Promotions ({count})</source>
        <translation>待确认的记忆（{count}）</translation>
    </message>
    <message>
        <source>Duplicates ({count})</source>
        <translation>重复项（{count}）</translation>
    </message>
    <message>
        <source>Expiring ({count})</source>
        <translation>即将过期（{count}）</translation>
    </message>
    <message>
        <source>Supersedes to confirm ({count})</source>
        <translation>待确认的取代（{count}）</translation>
    </message>
    <message>
        <source>Trends</source>
        <translation>趋势</translation>
    </message>
    <message>
        <source>Approve all ({count})</source>
        <translation>全部批准（{count}）</translation>
    </message>
    <message>
        <source>{since} to {until}</source>
        <translation>{since} 至 {until}</translation>
    </message>
    <message>
        <source>{trigger}: {hits} hits</source>
        <translation>{trigger}：命中 {hits} 次</translation>
    </message>
    <message>
        <source>{name}: {delta} mentions</source>
        <translation>{name}：提及 {delta} 次</translation>
    </message>
    <message>
        <source>{old} → {new}</source>
        <translation>{old} → {new}</translation>
    </message>
    <message>
        <source>{title}: recalled {count} times</source>
        <translation>{title}：召回 {count} 次</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>LLM today: {tokens} tokens in {calls} calls; {left} of the daily budget left.</source>
        <translation>今日 LLM：{calls} 次调用，共 {tokens} 个词元；今日预算剩余 {left}。</translation>
    </message>
    <message>
        <source>{type} “{title}” turns {next} on {day}, idle for {idle} days.</source>
        <translation>{type}“{title}”将于 {day} 变为{next}，已闲置 {idle} 天。</translation>
    </message>
    <message>
        <source>Does “{new}” replace “{old}”? Confidence {confidence} ({by}).</source>
        <translation>“{new}”是否取代“{old}”？置信度 {confidence}（{by}）。</translation>
    </message>
    <message>
        <source>Approved “{title}” as {type}.</source>
        <translation>已将“{title}”批准为{type}。</translation>
    </message>
    <message>
        <source>Rejected “{title}”.</source>
        <translation>已拒绝“{title}”。</translation>
    </message>
    <message>
        <source>Approved {count} promotions.</source>
        <translation>已批准 {count} 条，均已转为长期记忆。</translation>
    </message>
    <message>
        <source>Not approved: {errors}</source>
        <translation>未批准：{errors}</translation>
    </message>
    <message>
        <source>Merged “{dropped}” into “{kept}”.</source>
        <translation>已将“{dropped}”合并到“{kept}”。</translation>
    </message>
    <message>
        <source>Kept “{title}”.</source>
        <translation>已保留“{title}”。</translation>
    </message>
    <message>
        <source>Confirmed: “{new}” replaces “{old}”.</source>
        <translation>已确认：“{new}”取代“{old}”。</translation>
    </message>
    <message>
        <source>Dismissed: “{old}” stays current.</source>
        <translation>已驳回：“{old}”保持有效。</translation>
    </message>
    <message>
        <source>Grant…</source>
        <translation>授权…</translation>
    </message>
    <message>
        <source>Open Sensitive projects to grant access to this project</source>
        <translation>打开“敏感项目”窗口，为此项目授权</translation>
    </message>
    <message>
        <source>Approve all</source>
        <translation>全部批准</translation>
    </message>
    <message>
        <source>Approve {count} promotions with a DURA mean of at least {threshold}?</source>
        <translation>批准 DURA 均值不低于 {threshold} 的 {count} 条待确认记忆？</translation>
    </message>
    <message>
        <source>Each becomes a long-term memory.</source>
        <translation>每一条都将成为长期记忆。</translation>
    </message>
    <message>
        <source>(deleted)</source>
        <translation>（已删除）</translation>
    </message>
    <message>
        <source>(sealed)</source>
        <translation>（已加密）</translation>
    </message>
    <message>
        <source>“{title}”, changed {time}</source>
        <translation>“{title}”，修改于 {time}</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>In use since</source>
        <translation>当前版本修改于</translation>
    </message>
    <message>
        <source>Copies</source>
        <translation>副本</translation>
    </message>
    <message>
        <source>This memory was changed on two devices. The newer change is in use; the other is kept as a copy until you pick one. Every device follows your pick at its next sync.</source>
        <translation>这条记忆在两台设备上都被修改过。较新的修改正在使用；另一个作为副本保留，直到你做出选择。每台设备都会在下次同步时采用你的选择。</translation>
    </message>
    <message>
        <source>Keep this version</source>
        <translation>保留此版本</translation>
    </message>
    <message>
        <source>Keep the version in use and drop the copies</source>
        <translation>保留正在使用的版本，丢弃副本</translation>
    </message>
    <message>
        <source>In use</source>
        <translation>正在使用</translation>
    </message>
    <message>
        <source>Show versions</source>
        <translation>查看各版本</translation>
    </message>
    <message>
        <source>Read every version, side by side</source>
        <translation>并排查看每个版本</translation>
    </message>
    <message>
        <source>Use this copy</source>
        <translation>使用此副本</translation>
    </message>
    <message>
        <source>Take this copy instead of the version in use</source>
        <translation>用此副本替换正在使用的版本</translation>
    </message>
    <message>
        <source>This version deletes the memory.</source>
        <translation>此版本删除了这条记忆。</translation>
    </message>
    <message>
        <source>This version is sealed: its project is sensitive.</source>
        <translation>此版本已加密：它所属的项目是敏感项目。</translation>
    </message>
    <message>
        <source>In use, changed {time}</source>
        <translation>正在使用，修改于 {time}</translation>
    </message>
    <message>
        <source>Copy {rev}, changed {time}</source>
        <translation>副本 {rev}，修改于 {time}</translation>
    </message>
    <message>
        <source>Versions of {slug}</source>
        <translation>{slug} 的各版本</translation>
    </message>
    <message>
        <source>Compare the version in use with:</source>
        <translation>将正在使用的版本与以下版本比较：</translation>
    </message>
    <message>
        <source>Sync conflicts ({count})</source>
        <translation>同步冲突（{count}）</translation>
    </message>
    <message>
        <source>Kept the version of “{title}” in use; its copies are dropped.</source>
        <translation>已保留“{title}”正在使用的版本；其副本已丢弃。</translation>
    </message>
    <message>
        <source>“{title}” now uses the copy changed {time}.</source>
        <translation>“{title}”现在使用修改于 {time} 的副本。</translation>
    </message>
    <message>
        <source>No sync conflicts.</source>
        <translation>没有同步冲突。</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Date</source>
        <translation>日期</translation>
    </message>
    <message>
        <source>Suspect ({count})</source>
        <translation>可疑记忆（{count}）</translation>
    </message>
    <message>
        <source>“{title}” is no longer marked suspect.</source>
        <translation>“{title}”已不再标记为可疑。</translation>
    </message>
    <message>
        <source>Forgot “{title}”.</source>
        <translation>已遗忘“{title}”。</translation>
    </message>
    <message>
        <source>No suspect memories.</source>
        <translation>没有可疑记忆。</translation>
    </message>
    <message>
        <source>j/k move · a not suspicious · r forget</source>
        <translation>j/k 移动 · a 不可疑 · r 遗忘</translation>
    </message>
    <message>
        <source>title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>body</source>
        <translation>正文</translation>
    </message>
    <message>
        <source>triggers</source>
        <translation>触发词</translation>
    </message>
    <message>
        <source>tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>title and body</source>
        <translation>标题与正文</translation>
    </message>
    <message>
        <source>category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>turn {number} ({role})</source>
        <translation>第 {number} 轮（{role}）</translation>
    </message>
    <message>
        <source>bidi override</source>
        <translation>双向文本覆盖</translation>
    </message>
    <message>
        <source>unbalanced bidi isolate</source>
        <translation>未配对的双向隔离符</translation>
    </message>
    <message>
        <source>bidi isolate across lines</source>
        <translation>跨行的双向隔离符</translation>
    </message>
    <message>
        <source>zero-width joiner inside a word</source>
        <translation>词内的零宽连接符</translation>
    </message>
    <message>
        <source>zero-width characters</source>
        <translation>零宽字符</translation>
    </message>
    <message>
        <source>zero-width characters inside words</source>
        <translation>词内的零宽字符</translation>
    </message>
    <message>
        <source>deprecated format character</source>
        <translation>已弃用的格式字符</translation>
    </message>
    <message>
        <source>tag characters</source>
        <translation>标签字符</translation>
    </message>
    <message>
        <source>variation selectors</source>
        <translation>变体选择符</translation>
    </message>
    <message>
        <source>hidden characters: {kind}</source>
        <translation>隐藏字符：{kind}</translation>
    </message>
    <message>
        <source>hidden characters: {kind} ({count} removed)</source>
        <translation>隐藏字符：{kind}（已移除 {count} 个）</translation>
    </message>
    <message>
        <source>in the hidden text: {kind}</source>
        <translation>隐藏文本中：{kind}</translation>
    </message>
    <message>
        <source>in base64: {kind}</source>
        <translation>base64 中：{kind}</translation>
    </message>
    <message>
        <source>instructions addressed to an AI</source>
        <translation>针对 AI 的指令</translation>
    </message>
    <message>
        <source>claims system or developer authority</source>
        <translation>冒称系统或开发者权限</translation>
    </message>
    <message>
        <source>chat role markup</source>
        <translation>聊天角色标记</translation>
    </message>
    <message>
        <source>fake tool-call markup</source>
        <translation>伪造的工具调用标记</translation>
    </message>
    <message>
        <source>addressed to an AI reader</source>
        <translation>写给 AI 读者</translation>
    </message>
    <message>
        <source>instructions to a future session</source>
        <translation>给以后会话的指令</translation>
    </message>
    <message>
        <source>speaks for the user</source>
        <translation>冒充用户发言</translation>
    </message>
    <message>
        <source>asks to act without telling the user</source>
        <translation>要求瞒着用户行事</translation>
    </message>
    <message>
        <source>asks to act secretly</source>
        <translation>要求秘密行事</translation>
    </message>
    <message>
        <source>asks to send secrets out</source>
        <translation>要求把机密发送出去</translation>
    </message>
    <message>
        <source>asks to reveal secrets</source>
        <translation>要求泄露机密</translation>
    </message>
    <message>
        <source>risky action</source>
        <translation>高风险操作</translation>
    </message>
    <message>
        <source>gives an AI a new role</source>
        <translation>给 AI 指定新角色</translation>
    </message>
    <message>
        <source>orders an AI</source>
        <translation>命令 AI</translation>
    </message>
    <message>
        <source>asks to decode and follow hidden text</source>
        <translation>要求解码并执行隐藏文本</translation>
    </message>
    <message>
        <source>hidden in a comment</source>
        <translation>藏在注释里</translation>
    </message>
    <message>
        <source>hidden text spells out words</source>
        <translation>隐藏字符拼出了文字</translation>
    </message>
    <message>
        <source>and {count} more</source>
        <translation>另有 {count} 条</translation>
    </message>
    <message>
        <source>Type: {type}</source>
        <translation>类型：{type}</translation>
    </message>
    <message>
        <source>Triggers: {triggers}</source>
        <translation>触发词：{triggers}</translation>
    </message>
    <message>
        <source>Tags: {tags}</source>
        <translation>标签：{tags}</translation>
    </message>
    <message>
        <source>recorded directly</source>
        <translation>直接记录</translation>
    </message>
    <message>
        <source>{where}: {kind}</source>
        <translation>{where}：{kind}</translation>
    </message>
    <message>
        <source>Its text reads as if written for an AI. Until you decide, agents are not shown it at start-up, and it is not exported or promoted.</source>
        <translation>它的内容读起来像是写给 AI 的。在你决定之前，智能体启动时不会看到它，它也不会被导出或转为长期记忆。</translation>
    </message>
    <message>
        <source>Why it was flagged</source>
        <translation>标记原因</translation>
    </message>
    <message>
        <source>Not suspicious</source>
        <translation>不可疑</translation>
    </message>
    <message>
        <source>You vouch for it: agents may see it again (a in the list)</source>
        <translation>你为它担保：智能体可以再次看到它（列表中按 a）</translation>
    </message>
    <message>
        <source>Forget</source>
        <translation>遗忘</translation>
    </message>
    <message>
        <source>Remove it from memory (r in the list)</source>
        <translation>从记忆中移除（列表中按 r）</translation>
    </message>
    <message>
        <source>{slug} · project {project} · {type} · {source} · created {day}</source>
        <translation>{slug} · 项目 {project} · {type} · {source} · 创建于 {day}</translation>
    </message>
    <message>
        <source>Forget memory</source>
        <translation>遗忘记忆</translation>
    </message>
    <message>
        <source>Forget “{title}”? Agents will no longer recall it.</source>
        <translation>遗忘“{title}”吗？智能体将不再召回它。</translation>
    </message>
    <message>
        <source>Not duplicates</source>
        <translation>不是重复</translation>
    </message>
    <message>
        <source>These memories differ: stop proposing this group</source>
        <translation>这些记忆并不相同：不再把这一组列为重复项</translation>
    </message>
    <message>
        <source>Marked {count} memories as not duplicates.</source>
        <translation>已将 {count} 条记忆标记为不是重复。</translation>
    </message>
    <message>
        <source>Undone: “{title}” is no longer rejected and waits for review.</source>
        <translation>已撤销：“{title}”不再被拒绝，重新等待审核。</translation>
    </message>
    <message>
        <source>Undone: “{title}” is no longer approved and waits for review.</source>
        <translation>已撤销：“{title}”不再被批准，重新等待审核。</translation>
    </message>
    <message>
        <source>Undone: “{title}” is back, and the merge is taken back.</source>
        <translation>已撤销合并：“{title}”已恢复。</translation>
    </message>
    <message>
        <source>Undone: the group is proposed as duplicates again.</source>
        <translation>已撤销：这一组重新列为重复项。</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Undo the last review action taken here (Ctrl+Z)</source>
        <translation>撤销在此窗口中的上一次审核操作（Ctrl+Z）</translation>
    </message>
    <message>
        <source>Merge memories</source>
        <translation>合并记忆</translation>
    </message>
    <message>
        <source>Merge “{dropped}” into “{kept}”?</source>
        <translation>将“{dropped}”合并到“{kept}”吗？</translation>
    </message>
    <message>
        <source>“{kept}” takes over the other&apos;s triggers, tags and recalls. Undo (Ctrl+Z) brings “{dropped}” back.</source>
        <translation>“{kept}”将接收另一条记忆的触发词、标签和召回次数。撤销（Ctrl+Z）可恢复“{dropped}”。</translation>
    </message>
    <message>
        <source>Merge</source>
        <translation>合并</translation>
    </message>
</context>
<context>
    <name>GrantDialog</name>
    <message>
        <source>(sealed with the passphrase until access is granted)</source>
        <translation>（已用口令加密，授权访问后显示）</translation>
    </message>
    <message>
        <source>Allow access to a sensitive project</source>
        <translation>允许访问敏感项目</translation>
    </message>
    <message>
        <source>Folder:</source>
        <translation>文件夹：</translation>
    </message>
    <message>
        <source>Asked by:</source>
        <translation>请求方：</translation>
    </message>
    <message>
        <source>To:</source>
        <translation>用途：</translation>
    </message>
    <message>
        <source>Once (90 seconds)</source>
        <translation>仅一次（90 秒）</translation>
    </message>
    <message>
        <source>For this session (8 hours)</source>
        <translation>本次会话（8 小时）</translation>
    </message>
    <message>
        <source>For a task, until revoked:</source>
        <translation>用于某个任务，直到撤销：</translation>
    </message>
    <message>
        <source>task name, e.g. year-end</source>
        <translation>任务名称，例如：年终结算</translation>
    </message>
    <message>
        <source>Allow for how long?</source>
        <translation>允许多长时间？</translation>
    </message>
    <message>
        <source>Allow</source>
        <translation>允许</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Allow access to the sensitive project “{project}”?</source>
        <translation>允许访问敏感项目“{project}”吗？</translation>
    </message>
    <message>
        <source>Project:</source>
        <translation>项目：</translation>
    </message>
    <message>
        <source>read a memory</source>
        <translation>读取一条记忆</translation>
    </message>
    <message>
        <source>search memories</source>
        <translation>搜索记忆</translation>
    </message>
    <message>
        <source>read where memories were recalled</source>
        <translation>查看记忆被调用的记录</translation>
    </message>
    <message>
        <source>read a memory's history</source>
        <translation>查看一条记忆的历史</translation>
    </message>
    <message>
        <source>write the project's start-up snapshot</source>
        <translation>生成项目的启动快照</translation>
    </message>
    <message>
        <source>change a memory</source>
        <translation>修改一条记忆</translation>
    </message>
    <message>
        <source>forget a memory</source>
        <translation>遗忘一条记忆</translation>
    </message>
    <message>
        <source>merge memories</source>
        <translation>合并记忆</translation>
    </message>
    <message>
        <source>approve a proposed memory</source>
        <translation>批准一条提议的记忆</translation>
    </message>
    <message>
        <source>mark a memory as replaced</source>
        <translation>将一条记忆标为已被取代</translation>
    </message>
    <message>
        <source>undo a review decision</source>
        <translation>撤销一次审核决定</translation>
    </message>
    <message>
        <source>clear a memory flagged as suspect</source>
        <translation>解除一条记忆的可疑标记</translation>
    </message>
    <message>
        <source>Passphrase of this project:</source>
        <translation>此项目的密码短语：</translation>
    </message>
</context>
<context>
    <name>GrantServer</name>
        <message>
            <source>{who}, process {pid}</source>
            <translation>{who}，进程 {pid}</translation>
        </message>
    <message>
        <source>Allow</source>
        <translation>允许</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Send a sensitive project to the LLM?</source>
        <translation>把敏感项目发送给 LLM？</translation>
    </message>
    <message>
        <source>{who} asks to let {endpoint} score the sessions of the sensitive project {project}. Their text will leave this computer each time a session there is captured. Allow only if you asked for this yourself right now.</source>
        <translation>{who} 请求让 {endpoint} 为敏感项目 {project} 的会话评分。此后每捕获一次那里的会话，其文本都会离开这台电脑。只有在你本人刚刚提出此请求时才允许。</translation>
    </message>
    <message>
        <source>Set the grant PIN?</source>
        <translation>设置授权 PIN？</translation>
    </message>
    <message>
        <source>A request to set the grant PIN comes from {who}. Whoever knows it can let agents read your sensitive projects without this app. Allow only if you are setting it yourself right now.</source>
        <translation>{who} 请求设置授权 PIN。知道此 PIN 的人无需本应用即可让代理读取你的敏感项目。只有在你本人正在设置时才允许。</translation>
    </message>
    <message>
        <source>This passphrase does not open the project. Type it again.</source>
        <translation>这个密码短语打不开该项目，请重新输入。</translation>
    </message>
    <message>
        <source>the memoryd command</source>
        <translation>memoryd 命令</translation>
    </message>
    <message>
        <source>the MCP server</source>
        <translation>MCP 服务</translation>
    </message>
    <message>
        <source>a capture hook</source>
        <translation>捕获钩子</translation>
    </message>
    <message>
        <source>this app</source>
        <translation>本应用</translation>
    </message>
    <message>
        <source>{actor} ({agent})</source>
        <translation>{actor}（{agent}）</translation>
    </message>
</context>
<context>
    <name>IdentityWindow</name>
    <message>
        <source>manual</source>
        <translation>手动</translation>
    </message>
    <message>
        <source>weekly</source>
        <translation>每周</translation>
    </message>
    <message>
        <source>after an event</source>
        <translation>事件触发</translation>
    </message>
    <message>
        <source>Identity profile</source>
        <translation>身份画像</translation>
    </message>
    <message>
        <source>Current profile</source>
        <translation>当前画像</translation>
    </message>
    <message>
        <source>Versions</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Monthly reports</source>
        <translation>月度报告</translation>
    </message>
    <message>
        <source>Rewrite now</source>
        <translation>立即重写</translation>
    </message>
    <message>
        <source>Write the profile again from the memories, as the weekly job does.</source>
        <translation>像每周任务一样，根据记忆重新撰写画像。</translation>
    </message>
    <message>
        <source>Generate this month&apos;s report</source>
        <translation>生成本月报告</translation>
    </message>
    <message>
        <source>Reading the profile…</source>
        <translation>正在读取画像…</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Written</source>
        <translation>写入时间</translation>
    </message>
    <message>
        <source>Trigger</source>
        <translation>触发方式</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>with</source>
        <translation>与</translation>
    </message>
    <message>
        <source>Could not read the profile.</source>
        <translation>无法读取画像。</translation>
    </message>
    <message>
        <source>No identity profile yet. &quot;Rewrite now&quot; writes the first one from your memories.</source>
        <translation>还没有身份画像。“立即重写”会根据你的记忆写出第一版。</translation>
    </message>
    <message>
        <source>Version {version}, written {when} ({trigger}).</source>
        <translation>版本 {version}，写于 {when}（{trigger}）。</translation>
    </message>
    <message>
        <source>Change: {summary}.</source>
        <translation>变化：{summary}。</translation>
    </message>
    <message>
        <source>Drawn from {count} memories.</source>
        <translation>来自 {count} 条记忆。</translation>
    </message>
    <message>
        <source>v{version} · {when}</source>
        <translation>v{version} · {when}</translation>
    </message>
    <message>
        <source>v{version}</source>
        <translation>v{version}</translation>
    </message>
    <message>
        <source>Only one version so far: nothing to compare.</source>
        <translation>目前只有一个版本：没有可比较的内容。</translation>
    </message>
    <message>
        <source>No versions yet.</source>
        <translation>还没有版本。</translation>
    </message>
    <message>
        <source>No monthly report yet: &quot;Generate this month&apos;s report&quot; writes one.</source>
        <translation>还没有月度报告：“生成本月报告”会写出一份。</translation>
    </message>
    <message>
        <source>Reading versions…</source>
        <translation>正在读取版本…</translation>
    </message>
    <message>
        <source>{added} line(s) added, {removed} removed.</source>
        <translation>新增 {added} 行，删除 {removed} 行。</translation>
    </message>
    <message>
        <source>{period}, generated {when}.</source>
        <translation>{period}，生成于 {when}。</translation>
    </message>
    <message>
        <source>Versions: {versions}. Superseded: {supersedes}. Entities new: {added}, gone: {dropped}.</source>
        <translation>版本：{versions}。被取代：{supersedes}。实体新增：{added}，消失：{dropped}。</translation>
    </message>
    <message>
        <source>Rewriting the profile…</source>
        <translation>正在重写画像…</translation>
    </message>
    <message>
        <source>Version {version} written: {summary}.</source>
        <translation>已写入版本 {version}：{summary}。</translation>
    </message>
    <message>
        <source>Nothing new: the profile stays at version {version}.</source>
        <translation>没有变化：画像仍为版本 {version}。</translation>
    </message>
    <message>
        <source>Writing this month&apos;s report…</source>
        <translation>正在撰写本月报告…</translation>
    </message>
    <message>
        <source>Report for {period} written.</source>
        <translation>{period} 的报告已写入。</translation>
    </message>
    <message>
        <source>first version</source>
        <translation>第一个版本</translation>
    </message>
    <message>
        <source>rewritten by rules: a project was marked sensitive</source>
        <translation>按规则重写：有项目被标为敏感项目</translation>
    </message>
    <message>
        <source>{added} line(s) added, {removed} removed</source>
        <translation>新增 {added} 行，删除 {removed} 行</translation>
    </message>
</context>
<context>
    <name>MemoryDialogs</name>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Choose a folder</source>
        <translation>选择文件夹</translation>
    </message>
    <message>
        <source>Edit memory</source>
        <translation>编辑记忆</translation>
    </message>
    <message>
        <source>Record a memory</source>
        <translation>记录记忆</translation>
    </message>
    <message>
        <source>comma-separated phrases</source>
        <translation>用逗号分隔的短语</translation>
    </message>
    <message>
        <source>comma-separated</source>
        <translation>用逗号分隔</translation>
    </message>
    <message>
        <source>the project this memory belongs to</source>
        <translation>此记忆所属的项目</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <source>Body</source>
        <translation>正文</translation>
    </message>
    <message>
        <source>Triggers</source>
        <translation>触发词</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Project folder</source>
        <translation>项目文件夹</translation>
    </message>
    <message>
        <source>Merge memories</source>
        <translation>合并记忆</translation>
    </message>
    <message>
        <source>{title} ({slug})</source>
        <translation>{title}（{slug}）</translation>
    </message>
    <message>
        <source>Merge across projects</source>
        <translation>跨项目合并</translation>
    </message>
    <message>
        <source>Keep</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>The other memories are merged into the one kept (their triggers, tags and recalls) and then removed.</source>
        <translation>其他记忆（连同其触发词、标签和召回次数）会并入保留的记忆，然后被移除。</translation>
    </message>
    <message>
        <source>Import memories</source>
        <translation>导入记忆</translation>
    </message>
    <message>
        <source>Codex sessions</source>
        <translation>Codex 会话</translation>
    </message>
    <message>
        <source>OpenClaw workspace</source>
        <translation>OpenClaw 工作区</translation>
    </message>
    <message>
        <source>memory-system store</source>
        <translation>“memory-system” 存储</translation>
    </message>
    <message>
        <source>agent-memory store</source>
        <translation>“agent-memory” 存储</translation>
    </message>
    <message>
        <source>Import from</source>
        <translation>导入来源</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Into project</source>
        <translation>导入到项目</translation>
    </message>
    <message>
        <source>empty: ~/.codex</source>
        <translation>留空：~/.codex</translation>
    </message>
    <message>
        <source>required</source>
        <translation>必填</translation>
    </message>
    <message>
        <source>empty: as the source says</source>
        <translation>留空：沿用来源中的项目</translation>
    </message>
    <message>
        <source>Mark a project sensitive</source>
        <translation>将项目标记为敏感</translation>
    </message>
    <message>
        <source>Passphrase (optional)</source>
        <translation>密码短语（可选）</translation>
    </message>
    <message>
        <source>Repeat passphrase</source>
        <translation>再次输入密码短语</translation>
    </message>
    <message>
        <source>Its memories are encrypted and need a grant to be read. Without a passphrase the key is kept in the OS keyring. A passphrase cannot be recovered.</source>
        <translation>其记忆将被加密，读取时需要授权。不设密码短语时，密钥保存在系统钥匙串中。密码短语一旦遗忘便无法找回。</translation>
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
    <message>
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>决策</translation>
    </message>
    <message>
        <source>Preference</source>
        <translation>偏好</translation>
    </message>
    <message>
        <source>Fact</source>
        <translation>事实</translation>
    </message>
    <message>
        <source>Playbook</source>
        <translation>操作手册</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警示</translation>
    </message>
</context>
<context>
    <name>ProgressPanel</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
</context>
<context>
    <name>ScopesWindow</name>
    <message>
        <source>Key in the OS keyring</source>
        <translation>密钥在系统钥匙串中</translation>
    </message>
    <message>
        <source>Passphrase</source>
        <translation>密码短语</translation>
    </message>
    <message>
        <source>once, until {time}</source>
        <translation>一次，至 {time}</translation>
    </message>
    <message>
        <source>session, until {time}</source>
        <translation>会话，至 {time}</translation>
    </message>
    <message>
        <source>task “{task}”, until revoked</source>
        <translation>任务“{task}”，直到撤销</translation>
    </message>
    <message>
        <source>Locked</source>
        <translation>已锁定</translation>
    </message>
    <message>
        <source>Sensitive projects</source>
        <translation>敏感项目</translation>
    </message>
    <message>
        <source>The memories of these projects are encrypted. Agents and the command line read them only while a grant is live.</source>
        <translation>这些项目的记忆已加密。只有在授权有效期间，智能体和命令行才能读取它们。</translation>
    </message>
    <message>
        <source>Path</source>
        <translation>路径</translation>
    </message>
    <message>
        <source>Protection</source>
        <translation>保护方式</translation>
    </message>
    <message>
        <source>Marked</source>
        <translation>标记时间</translation>
    </message>
    <message>
        <source>Access</source>
        <translation>访问</translation>
    </message>
    <message>
        <source>No project is marked sensitive.</source>
        <translation>没有项目被标记为敏感。</translation>
    </message>
    <message>
        <source>Grant…</source>
        <translation>授权…</translation>
    </message>
    <message>
        <source>Revoke</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>End every live grant of this project.</source>
        <translation>结束此项目所有有效的授权。</translation>
    </message>
    <message>
        <source>Unmark…</source>
        <translation>取消标记…</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Decrypt this project&apos;s memories and stop protecting it.</source>
        <translation>解密此项目的记忆并停止保护。</translation>
    </message>
    <message>
        <source>Grant access first: unmarking reads every memory to decrypt it.</source>
        <translation>请先授权：取消标记需要读取每条记忆来解密。</translation>
    </message>
    <message>
        <source>memoryd tray (you)</source>
        <translation>memoryd 托盘（你）</translation>
    </message>
    <message>
        <source>let agents and the command line read its memories</source>
        <translation>让智能体和命令行读取其记忆</translation>
    </message>
    <message>
        <source>Access granted to {root}: {grant}.</source>
        <translation>已授权访问 {root}：{grant}。</translation>
    </message>
    <message>
        <source>Note: {warning}.</source>
        <translation>注意：{warning}。</translation>
    </message>
    <message>
        <source>Grants revoked for {root}: {count}.</source>
        <translation>已撤销 {root} 的授权：{count} 个。</translation>
    </message>
    <message>
        <source>Unmark a sensitive project</source>
        <translation>取消标记敏感项目</translation>
    </message>
    <message>
        <source>Stop protecting {root}?</source>
        <translation>停止保护 {root} 吗？</translation>
    </message>
    <message>
        <source>Its memories are decrypted and stored as plain files again, and its key is deleted. Agents can then read them without a grant.</source>
        <translation>其记忆将被解密并重新以明文文件保存，密钥将被删除。之后智能体无需授权即可读取。</translation>
    </message>
    <message>
        <source>Unmark</source>
        <translation>取消标记</translation>
    </message>
    <message>
        <source>Decrypting {root}…</source>
        <translation>正在解密 {root}…</translation>
    </message>
    <message>
        <source>{root} is no longer sensitive; memories decrypted: {count}.</source>
        <translation>{root} 不再是敏感项目；已解密记忆：{count} 条。</translation>
    </message>
    <message>
        <source>Here (rules)</source>
        <translation>本机（规则）</translation>
    </message>
    <message>
        <source>Their text will leave this computer each time a session there is captured. If the provider or its URL changes, they are kept here again.</source>
        <translation>此后每捕获一次那里的会话，其文本都会离开这台电脑。如果服务商或其 URL 改变，会话将重新留在本机。</translation>
    </message>
    <message>
        <source>Sessions scored</source>
        <translation>会话评分</translation>
    </message>
    <message>
        <source>Keep sessions here</source>
        <translation>会话留在本机</translation>
    </message>
    <message>
        <source>Score with the LLM…</source>
        <translation>交给 LLM 评分…</translation>
    </message>
    <message>
        <source>Stop sending this project&apos;s sessions to the LLM provider.</source>
        <translation>不再把这个项目的会话发送给 LLM 服务商。</translation>
    </message>
    <message>
        <source>Send this project&apos;s sessions to the LLM provider for scoring (they leave this computer).</source>
        <translation>把这个项目的会话发送给 LLM 服务商评分（会话会离开这台电脑）。</translation>
    </message>
    <message>
        <source>No LLM provider is configured: sessions are scored here by the rules.</source>
        <translation>没有配置 LLM 服务商：会话在本机按规则评分。</translation>
    </message>
    <message>
        <source>Send the sessions of {root} to {endpoint}?</source>
        <translation>把 {root} 的会话发送给 {endpoint}？</translation>
    </message>
    <message>
        <source>Sessions of {root} are scored by {endpoint}.</source>
        <translation>{root} 的会话由 {endpoint} 评分。</translation>
    </message>
    <message>
        <source>Sessions of {root} are scored here by the rules.</source>
        <translation>{root} 的会话在本机按规则评分。</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>never</source>
        <translation>从未</translation>
    </message>
    <message>
        <source>Rules only (no LLM)</source>
        <translation>仅规则（不使用 LLM）</translation>
    </message>
    <message>
        <source>Anthropic</source>
        <translation>Anthropic</translation>
    </message>
    <message>
        <source>OpenAI</source>
        <translation>OpenAI</translation>
    </message>
    <message>
        <source>Ollama (local)</source>
        <translation>Ollama（本地）</translation>
    </message>
    <message>
        <source>Nightly consolidation</source>
        <translation>夜间整理</translation>
    </message>
    <message>
        <source>Weekly digest</source>
        <translation>每周摘要</translation>
    </message>
    <message>
        <source>Identity rewrite</source>
        <translation>身份画像重写</translation>
    </message>
    <message>
        <source>Monthly report</source>
        <translation>月度报告</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>LLM</source>
        <translation>LLM</translation>
    </message>
    <message>
        <source>Email</source>
        <translation>邮件</translation>
    </message>
    <message>
        <source>Schedules</source>
        <translation>计划任务</translation>
    </message>
    <message>
        <source>Sync</source>
        <translation>同步</translation>
    </message>
    <message>
        <source>General</source>
        <translation>常规</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>The provider&apos;s model name</source>
        <translation>服务商的模型名称</translation>
    </message>
    <message>
        <source>Paste a new key to store it</source>
        <translation>粘贴新密钥即可保存</translation>
    </message>
    <message>
        <source>Remove key</source>
        <translation>移除密钥</translation>
    </message>
    <message>
        <source>Provider:</source>
        <translation>服务商：</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API 密钥：</translation>
    </message>
    <message>
        <source>API keys are kept in the OS keyring, never in config.toml.</source>
        <translation>API 密钥保存在系统钥匙串中，绝不写入 config.toml。</translation>
    </message>
    <message>
        <source>STARTTLS</source>
        <translation>STARTTLS</translation>
    </message>
    <message>
        <source>SSL/TLS</source>
        <translation>SSL/TLS</translation>
    </message>
    <message>
        <source>None (unencrypted)</source>
        <translation>无（不加密）</translation>
    </message>
    <message>
        <source>Addresses, separated by commas</source>
        <translation>邮箱地址，用逗号分隔</translation>
    </message>
    <message>
        <source>Leave empty to keep the stored password</source>
        <translation>留空则保留已存储的密码</translation>
    </message>
    <message>
        <source>SMTP server:</source>
        <translation>SMTP 服务器：</translation>
    </message>
    <message>
        <source>Port:</source>
        <translation>端口：</translation>
    </message>
    <message>
        <source>Security:</source>
        <translation>加密方式：</translation>
    </message>
    <message>
        <source>User:</source>
        <translation>用户名：</translation>
    </message>
    <message>
        <source>Password:</source>
        <translation>密码：</translation>
    </message>
    <message>
        <source>From:</source>
        <translation>发件人：</translation>
    </message>
    <message>
        <source>To:</source>
        <translation>收件人：</translation>
    </message>
    <message>
        <source>The weekly digest is mailed here. The password is kept in the OS keyring.</source>
        <translation>每周摘要会发送到这里。密码保存在系统钥匙串中。</translation>
    </message>
    <message>
        <source>No sync folder</source>
        <translation>未设置同步文件夹</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>Sync folder:</source>
        <translation>同步文件夹：</translation>
    </message>
    <message>
        <source>Leave it empty to stop syncing.</source>
        <translation>留空即停止同步。</translation>
    </message>
    <message>
        <source>Start memoryd when I log in</source>
        <translation>登录时启动 memoryd</translation>
    </message>
    <message>
        <source>Starting at login is not available in this installation.</source>
        <translation>此安装不支持登录时启动。</translation>
    </message>
    <message>
        <source>Follow system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <source>A new language applies the next time memoryd starts.</source>
        <translation>新语言将在 memoryd 下次启动时生效。</translation>
    </message>
    <message>
        <source>Reading settings…</source>
        <translation>正在读取设置…</translation>
    </message>
    <message>
        <source>minute hour day month weekday</source>
        <translation>分 时 日 月 星期</translation>
    </message>
    <message>
        <source>These jobs are run by the timers `memoryd setup auto-install` installed ({timers}), not by the tray.</source>
        <translation>这些任务由 `memoryd setup auto-install` 安装的定时器（{timers}）运行，而非托盘。</translation>
    </message>
    <message>
        <source>Next run: {when}</source>
        <translation>下次运行：{when}</translation>
    </message>
    <message>
        <source>Runs with the nightly consolidation when due (next due: {when})</source>
        <translation>到期时随夜间整理一起运行（下次到期：{when}）</translation>
    </message>
    <message>
        <source>Last run failed: {error}</source>
        <translation>上次运行失败：{error}</translation>
    </message>
    <message>
        <source>Last run: {when}</source>
        <translation>上次运行：{when}</translation>
    </message>
    <message>
        <source>Could not read the settings: {error}</source>
        <translation>无法读取设置：{error}</translation>
    </message>
    <message>
        <source>{provider} takes no API key.</source>
        <translation>{provider} 无需 API 密钥。</translation>
    </message>
    <message>
        <source>The stored key will be removed when you save.</source>
        <translation>保存时将移除已存储的密钥。</translation>
    </message>
    <message>
        <source>A key is stored in the OS keyring.</source>
        <translation>系统钥匙串中已存有密钥。</translation>
    </message>
    <message>
        <source>No key stored yet.</source>
        <translation>尚未存储密钥。</translation>
    </message>
    <message>
        <source>Choose the sync folder</source>
        <translation>选择同步文件夹</translation>
    </message>
    <message>
        <source>The settings have not been read yet.</source>
        <translation>尚未读取设置。</translation>
    </message>
    <message>
        <source>Enter the model {provider} should use.</source>
        <translation>请输入 {provider} 要使用的模型。</translation>
    </message>
    <message>
        <source>Enter the SMTP user first: the password is stored under it.</source>
        <translation>请先输入 SMTP 用户名：密码按该用户名存储。</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>Nothing was saved: a schedule is not valid.</source>
        <translation>未保存任何内容：有一项计划无效。</translation>
    </message>
    <message>
        <source>Monday</source>
        <translation>星期一</translation>
    </message>
    <message>
        <source>Tuesday</source>
        <translation>星期二</translation>
    </message>
    <message>
        <source>Wednesday</source>
        <translation>星期三</translation>
    </message>
    <message>
        <source>Thursday</source>
        <translation>星期四</translation>
    </message>
    <message>
        <source>Friday</source>
        <translation>星期五</translation>
    </message>
    <message>
        <source>Saturday</source>
        <translation>星期六</translation>
    </message>
    <message>
        <source>Sunday</source>
        <translation>星期日</translation>
    </message>
    <message>
        <source>Every day</source>
        <translation>每天</translation>
    </message>
    <message>
        <source>Every week</source>
        <translation>每周</translation>
    </message>
    <message>
        <source>Every month</source>
        <translation>每月</translation>
    </message>
    <message>
        <source>Advanced (cron)</source>
        <translation>高级（cron）</translation>
    </message>
    <message>
        <source>day {day}</source>
        <translation>第 {day} 日</translation>
    </message>
    <message>
        <source>at</source>
        <translation>于</translation>
    </message>
    <message>
        <source>Five fields in local time: minute hour day month weekday. Empty means the default time.</source>
        <translation>五个字段，使用本地时间：分 时 日 月 星期。留空表示使用默认时间。</translation>
    </message>
    <message>
        <source>Times are in this computer's local time. For anything else, choose Advanced and write a cron line.</source>
        <translation>时间均为本机的本地时间。其他安排请选择“高级”并填写 cron 表达式。</translation>
    </message>
    <message>
        <source>Not a valid cron line. It needs five fields, minute hour day month weekday: 30 2 * * 1 is Mondays at 02:30.</source>
        <translation>不是有效的 cron 表达式。需要五个字段：分 时 日 月 星期；例如 30 2 * * 1 表示每周一 02:30。</translation>
    </message>
    <message>
        <source>Empty: the default time is used.</source>
        <translation>留空：使用默认时间。</translation>
    </message>
    <message>
        <source>This line never runs: no date matches it.</source>
        <translation>这一行永远不会运行：没有日期与它匹配。</translation>
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
        <source>Promotions waiting: {count}</source>
        <translation>待确认的长期记忆：{count}</translation>
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
        <source>Capture is paused</source>
        <translation>捕获已暂停</translation>
    </message>
    <message>
        <source>Could not read memoryd: {error}</source>
        <translation>无法读取 memoryd：{error}</translation>
    </message>
    <message>
        <source>Consolidation: {step}</source>
        <translation>整理：{step}</translation>
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
        <source>Consolidating…</source>
        <translation>正在整理…</translation>
    </message>
    <message>
        <source>Consolidate now</source>
        <translation>立即整理</translation>
    </message>
    <message>
        <source>Resume capture</source>
        <translation>恢复捕获</translation>
    </message>
    <message>
        <source>Pause capture</source>
        <translation>暂停捕获</translation>
    </message>
    <message>
        <source>Review digest...</source>
        <translation>查看每周摘要…</translation>
    </message>
    <message>
        <source>Search memories...</source>
        <translation>搜索记忆…</translation>
    </message>
    <message>
        <source>Sensitive projects...</source>
        <translation>敏感项目…</translation>
    </message>
    <message>
        <source>Identity...</source>
        <translation>身份画像…</translation>
    </message>
    <message>
        <source>Settings...</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Open data folder</source>
        <translation>打开数据文件夹</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Syncing with {folder}…</source>
        <translation>正在与 {folder} 同步…</translation>
    </message>
    <message>
        <source>Sync now (no folder: Settings → Sync)</source>
        <translation>立即同步（未设置文件夹：设置 → 同步）</translation>
    </message>
    <message>
        <source>Choose a sync folder in Settings → Sync to share memories across devices.</source>
        <translation>在“设置 → 同步”中选择同步文件夹，即可在设备间共享记忆。</translation>
    </message>
    <message>
        <source>Sync with {folder}</source>
        <translation>与 {folder} 同步</translation>
    </message>
    <message>
        <source>Syncing…</source>
        <translation>正在同步…</translation>
    </message>
    <message>
        <source>Sync now</source>
        <translation>立即同步</translation>
    </message>
</context>
<context>
    <name>Projects</name>
    <message>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>sensitive project {hash}</source>
        <translation>敏感项目 {hash}</translation>
    </message>
    <message>
        <source>d MMM yyyy</source>
        <translation>yyyy年M月d日</translation>
    </message>
    <message>
        <source>From the session of {day} in {project}</source>
        <translation>来自 {project} 于 {day} 的会话</translation>
    </message>
</context>
<context>
    <name>TrendsChart</name>
    <message>
        <source>d MMM</source>
        <translation>M月d日</translation>
    </message>
    <message>
        <source>Activity per week</source>
        <translation>每周活动</translation>
    </message>
    <message>
        <source>No activity yet. Captured sessions, recalls and approved promotions show here week by week.</source>
        <translation>还没有活动。捕获的会话、召回次数和新增的长期记忆会在这里按周显示。</translation>
    </message>
    <message>
        <source>No trigger was hit in this period yet.</source>
        <translation>这段时间内还没有触发词被命中。</translation>
    </message>
    <message>
        <source>Captures</source>
        <translation>捕获的会话</translation>
    </message>
    <message>
        <source>Recalls</source>
        <translation>召回</translation>
    </message>
    <message>
        <source>Promotions</source>
        <translation>新增长期记忆</translation>
    </message>
</context>
<context>
    <name>Welcome</name>
    <message>
        <source>Welcome</source>
        <translation>欢迎</translation>
    </message>
    <message>
        <source>Welcome to memoryd</source>
        <translation>欢迎使用 memoryd</translation>
    </message>
    <message>
        <source>memoryd remembers what you work out with your coding agents: each session, and the decisions, preferences and warnings worth keeping. At the start of the next session it gives the agent what matters for that project. Everything stays on this computer, in a folder you can read, and sensitive projects are encrypted.</source>
        <translation>memoryd 会记住你和编程助手一起得出的东西：每一次会话，以及值得保留的决定、偏好和警告。下一次会话开始时，它会把与该项目相关的内容交给助手。所有内容都留在这台电脑上、一个你可以查看的文件夹里，敏感项目会被加密。</translation>
    </message>
    <message>
        <source>Connect your agents</source>
        <translation>连接你的编程助手</translation>
    </message>
    <message>
        <source>Looking for agents on this computer…</source>
        <translation>正在查找这台电脑上的编程助手…</translation>
    </message>
    <message>
        <source>Connect the selected agents</source>
        <translation>连接选中的助手</translation>
    </message>
    <message>
        <source>An API key (optional)</source>
        <translation>API 密钥（可选）</translation>
    </message>
    <message>
        <source>Save key</source>
        <translation>保存密钥</translation>
    </message>
    <message>
        <source>Where to find things</source>
        <translation>在哪里找到它们</translation>
    </message>
    <message>
        <source>Skip</source>
        <translation>跳过</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>The key is stored in the OS keyring.</source>
        <translation>密钥已保存在系统密钥环中。</translation>
    </message>
    <message>
        <source>With a key, a language model judges what in a session is worth keeping; without one, memoryd uses its own rules. The key goes into the OS keyring, never into a file.</source>
        <translation>有了密钥，会由语言模型判断会话中哪些内容值得保留；没有密钥时，memoryd 使用自带的规则。密钥保存在系统密钥环中，绝不会写入文件。</translation>
    </message>
    <message>
        <source>The weekly review, in the tray menu: once a week, approve or reject what memoryd proposes to keep.</source>
        <translation>每周审核（在托盘菜单中）：每周一次，批准或拒绝 memoryd 建议保留的内容。</translation>
    </message>
    <message>
        <source>Found on this computer: memoryd adds its hooks to their settings.</source>
        <translation>在这台电脑上找到了以下助手：memoryd 会把它的钩子加入它们的设置。</translation>
    </message>
    <message>
        <source>No agent found on this computer (Claude Code, Codex, OpenClaw). Once one is installed, connect it with: memoryd setup claude-code</source>
        <translation>这台电脑上没有找到编程助手（Claude Code、Codex、OpenClaw）。安装之后，可以用这条命令连接：“memoryd setup claude-code”</translation>
    </message>
    <message>
        <source>The language model chosen in Settings takes no API key.</source>
        <translation>设置中选择的语言模型不需要 API 密钥。</translation>
    </message>
    <message>
        <source>Sensitive projects, in the tray menu: a project's memories kept encrypted, and an agent asks you before it reads them.</source>
        <translation>敏感项目（在托盘菜单中）：项目的记忆加密保存，助手读取之前会先征得你的同意。</translation>
    </message>
    <message>
        <source>{agent}: already connected</source>
        <translation>{agent}：已连接</translation>
    </message>
    <message>
        <source>{provider} API key:</source>
        <translation>{provider} API 密钥：</translation>
    </message>
    <message>
        <source>{agent}: its settings cannot be read: {problem}</source>
        <translation>{agent}：无法读取它的设置：{problem}</translation>
    </message>
    <message>
        <source>{agent} (settings in {folder})</source>
        <translation>{agent}（设置位于 {folder}）</translation>
    </message>
    <message>
        <source>{agent}: not connected: {error}</source>
        <translation>{agent}：未连接：{error}</translation>
    </message>
    <message>
        <source>Restart it to start using memoryd.</source>
        <translation>重启它即可开始使用 memoryd。</translation>
    </message>
    <message>
        <source>{agent}: connected ({count} settings files changed; backups kept).</source>
        <translation>{agent}：已连接（修改了 {count} 个设置文件，并保留了备份）。</translation>
    </message>
</context>
<context>
    <name>IdentityReport</name>
    <message>
        <source>“{title}”</source>
        <translation>“{title}”</translation>
    </message>
    <message>
        <source>{old} → {new}</source>
        <translation>{old} → {new}</translation>
    </message>
    <message>
        <source>{old}, replaced by {new}</source>
        <translation>{old}，已被{new}取代</translation>
    </message>
    <message>
        <source>Preferences added</source>
        <translation>新增的偏好</translation>
    </message>
    <message>
        <source>Preferences dropped</source>
        <translation>不再采用的偏好</translation>
    </message>
    <message>
        <source>Decisions superseded</source>
        <translation>被取代的决定</translation>
    </message>
    <message>
        <source>Also superseded</source>
        <translation>其他被取代的记忆</translation>
    </message>
    <message>
        <source>{kind}: {change}</source>
        <translation>{kind}：{change}</translation>
    </message>
    <message>
        <source>Decisions added</source>
        <translation>新增的决定</translation>
    </message>
    <message>
        <source>Warnings added</source>
        <translation>新增的警示</translation>
    </message>
    <message>
        <source>Facts added</source>
        <translation>新增的事实</translation>
    </message>
    <message>
        <source>Playbooks added</source>
        <translation>新增的操作手册</translation>
    </message>
    <message>
        <source>New in your memories</source>
        <translation>新出现的名称</translation>
    </message>
    <message>
        <source>No longer mentioned</source>
        <translation>不再提及的名称</translation>
    </message>
    <message>
        <source>{count} new version(s) of your profile this month.</source>
        <translation>本月你的画像有 {count} 个新版本。</translation>
    </message>
    <message>
        <source>Your profile did not change this month.</source>
        <translation>本月你的画像没有变化。</translation>
    </message>
    <message>
        <source>Nothing changed in your memories this month.</source>
        <translation>本月你的记忆没有变化。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>{versions} version(s) and {reports} monthly report(s) draw on sensitive projects ({projects}) and are hidden. Grant access to those projects to see them.</source>
        <translation>{versions} 个版本和 {reports} 份月度报告用到了敏感项目（{projects}），因此已隐藏。授权访问这些项目即可查看。</translation>
    </message>
    <message>
        <source>{versions} version(s) draw on sensitive projects ({projects}) and are hidden. Grant access to those projects to see them.</source>
        <translation>{versions} 个版本用到了敏感项目（{projects}），因此已隐藏。授权访问这些项目即可查看。</translation>
    </message>
    <message>
        <source>{reports} monthly report(s) draw on sensitive projects ({projects}) and are hidden. Grant access to those projects to see them.</source>
        <translation>{reports} 份月度报告用到了敏感项目（{projects}），因此已隐藏。授权访问这些项目即可查看。</translation>
    </message>
    <message>
        <source>shown under a grant on a sensitive project</source>
        <translation>因敏感项目的授权而显示</translation>
    </message>
    <message>
        <source>Show the report file and its diff</source>
        <translation>显示报告文件及其差异</translation>
    </message>
    <message>
        <source>Hide the report file</source>
        <translation>隐藏报告文件</translation>
    </message>
    <message>
        <source>({note})</source>
        <translation>（{note}）</translation>
    </message>
    <message>
        <source>Reading the month's changes…</source>
        <translation>正在读取本月的变化…</translation>
    </message>
</context>
<context>
    <name>DuraReasoning</name>
    <message>
        <source>identity, health or safety</source>
        <translation>身份、健康或安全</translation>
    </message>
    <message>
        <source>temporary</source>
        <translation>临时信息</translation>
    </message>
    <message>
        <source>nothing stated to keep</source>
        <translation>没有值得保留的内容</translation>
    </message>
    <message>
        <source>decision</source>
        <translation>决定</translation>
    </message>
    <message>
        <source>preference</source>
        <translation>偏好</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警示</translation>
    </message>
    <message>
        <source>playbook</source>
        <translation>操作手册</translation>
    </message>
    <message>
        <source>fact</source>
        <translation>事实</translation>
    </message>
    <message>
        <source>sensitive project: nothing sent to the LLM</source>
        <translation>敏感项目：未发送给 LLM</translation>
    </message>
    <message>
        <source>suspect memory: nothing sent to the LLM</source>
        <translation>可疑记忆：未发送给 LLM</translation>
    </message>
    <message>
        <source>today's LLM token budget is spent</source>
        <translation>今日 LLM 词元预算已用完</translation>
    </message>
    <message>
        <source>the LLM failed</source>
        <translation>LLM 调用失败</translation>
    </message>
    <message>
        <source>no API key for the LLM</source>
        <translation>没有 LLM 的 API 密钥</translation>
    </message>
    <message>
        <source>the settings choose the rules</source>
        <translation>设置选择了规则评分</translation>
    </message>
    <message>
        <source>the LLM was not used</source>
        <translation>未使用 LLM</translation>
    </message>
    <message>
        <source>said as “{words}”</source>
        <translation>原话“{words}”</translation>
    </message>
    <message>
        <source>asked to remember</source>
        <translation>要求记住</translation>
    </message>
    <message>
        <source>asked to remember to do it</source>
        <translation>要求记得去做</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>marked important</source>
        <translation>标为重要</translation>
    </message>
    <message>
        <source>said in passing</source>
        <translation>顺带一提</translation>
    </message>
    <message>
        <source>{type} ({cue})</source>
        <translation>{type}（{cue}）</translation>
    </message>
    <message>
        <source>repeated “{words}” +0.2</source>
        <translation>重复提到“{words}” +0.2</translation>
    </message>
    <message>
        <source>Scored by the rules ({reason})</source>
        <translation>按规则评分（{reason}）</translation>
    </message>
    <message>
        <source>Scored by the rules</source>
        <translation>按规则评分</translation>
    </message>
    <message>
        <source>{head}: importance {importance} = {parts}</source>
        <translation>{head}：重要性 {importance} = {parts}</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
</context>
<context>
    <name>Consolidation</name>
    <message>
        <source>{n} captures processed</source>
        <translation>处理了 {n} 条捕获</translation>
    </message>
    <message>
        <source>{n} sessions analysed</source>
        <translation>分析了 {n} 次会话</translation>
    </message>
    <message>
        <source>{n} proposals for review</source>
        <translation>{n} 条提议待审核</translation>
    </message>
    <message>
        <source>{n} duplicate proposals dropped</source>
        <translation>丢弃了 {n} 条重复提议</translation>
    </message>
    <message>
        <source>{n} memories faded</source>
        <translation>{n} 条记忆已淡化</translation>
    </message>
    <message>
        <source>identity profile v{n}</source>
        <translation>身份画像 v{n}</translation>
    </message>
    <message>
        <source>{n} snapshots refreshed</source>
        <translation>刷新了 {n} 个快照</translation>
    </message>
    <message>
        <source>{n} files exported</source>
        <translation>导出了 {n} 个文件</translation>
    </message>
    <message>
        <source>{n} LLM tokens</source>
        <translation>{n} 个 LLM 词元</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>capture</source>
        <translation>捕获</translation>
    </message>
    <message>
        <source>analysis</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>duplicates</source>
        <translation>去重</translation>
    </message>
    <message>
        <source>decay</source>
        <translation>淡化</translation>
    </message>
    <message>
        <source>identity profile</source>
        <translation>身份画像</translation>
    </message>
    <message>
        <source>snapshots</source>
        <translation>快照</translation>
    </message>
    <message>
        <source>exports</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>{phase}…</source>
        <translation>{phase}…</translation>
    </message>
    <message>
        <source>resuming the interrupted run</source>
        <translation>继续上次中断的整理</translation>
    </message>
    <message>
        <source>{phase} failed</source>
        <translation>{phase}失败</translation>
    </message>
    <message>
        <source>{phase}: done before the interruption</source>
        <translation>{phase}：中断前已完成</translation>
    </message>
    <message>
        <source>nothing new</source>
        <translation>没有新内容</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} 秒</translation>
    </message>
    <message>
        <source>{phase}: nothing to do ({seconds})</source>
        <translation>{phase}：无事可做（{seconds}）</translation>
    </message>
    <message>
        <source>{phase}: {done} ({seconds})</source>
        <translation>{phase}：{done}（{seconds}）</translation>
    </message>
</context>
<context>
    <name>Errors</name>
    <message>
        <source>This is in a sensitive project: grant access to read it.</source>
        <translation>这属于敏感项目：授权后才能读取。</translation>
    </message>
    <message>
        <source>“{project}” is a sensitive project: grant access to read it.</source>
        <translation>“{project}”是敏感项目：授权后才能读取。</translation>
    </message>
</context>
</TS>

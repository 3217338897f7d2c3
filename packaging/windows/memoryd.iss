; Inno Setup 6 script for memoryd on Windows: installs PyInstaller's onedir bundle
; (dist\memoryd\: memoryd.exe, memoryd-tray.exe, _internal\) into Program Files.
;
; packaging/build.py runs it on Windows after PyInstaller:
;   iscc /DAppVersion=0.1.0 /DBundleDir=C:\...\dist\memoryd /DOutputDir=C:\...\dist
;        /DIconFile=C:\...\build\pyinstaller\memoryd\assets\icons\memoryd.ico packaging\windows\memoryd.iss
; which writes dist\memoryd-<version>-setup.exe. Without the /D options it takes the
; bundle from ..\..\dist\memoryd next to this script.
;
; What the installer does: files under {autopf}\memoryd; Start-menu shortcuts for the tray
; and the uninstaller; optional tasks "start at login" (the HKCU Run value memoryd, the same
; one `memoryd autostart` and the tray's settings read and write) and "add memoryd to PATH"
; (for the CLI and the agents' hooks); the uninstaller removes exactly that and stops a
; running tray first. The memories themselves (MEMORYD_HOME, by default in the user's
; AppData) are never touched.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#ifndef BundleDir
  #define BundleDir "..\..\dist\memoryd"
#endif
#ifndef OutputDir
  #define OutputDir "..\..\dist"
#endif
#define EnvironmentKey "SYSTEM\CurrentControlSet\Control\Session Manager\Environment"
#define RunKey "Software\Microsoft\Windows\CurrentVersion\Run"

[Setup]
; The AppId identifies memoryd to the uninstaller and to upgrades: never change it.
AppId={{F76077AC-56F5-4701-9B6E-F8F630EC257D}
AppName=memoryd
AppVersion={#AppVersion}
AppVerName=memoryd {#AppVersion}
AppPublisher=memoryd
AppComments=Local long-term memory for AI agents, with a tray app to govern it
DefaultDirName={autopf}\memoryd
DefaultGroupName=memoryd
DisableProgramGroupPage=yes
PrivilegesRequired=admin
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir={#OutputDir}
OutputBaseFilename=memoryd-{#AppVersion}-setup
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
UninstallDisplayIcon={app}\memoryd-tray.exe
UninstallDisplayName=memoryd
; PATH is changed for every user: tell running programs (Explorer) after install/uninstall.
ChangesEnvironment=yes
; Close a running tray (Restart Manager) before replacing its files on an upgrade.
CloseApplications=yes
; The optional "start at login" value is per user (HKCU), by design: the tray runs per user.
UsedUserAreasWarning=no
#ifdef IconFile
SetupIconFile={#IconFile}
#endif

[Tasks]
Name: "startatlogin"; Description: "Start the memoryd tray when I log in"; GroupDescription: "Options:"
Name: "addtopath"; Description: "Add memoryd to PATH (the memoryd command in terminals)"; GroupDescription: "Options:"

[Files]
Source: "{#BundleDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\memoryd"; Filename: "{app}\memoryd-tray.exe"; WorkingDir: "{app}"; Comment: "Review and govern what your AI agents remember"
Name: "{group}\Uninstall memoryd"; Filename: "{uninstallexe}"

[Registry]
; The same value memoryd.agents.autostart writes: the tray's path, quoted.
Root: HKCU; Subkey: "{#RunKey}"; ValueType: string; ValueName: "memoryd"; ValueData: """{app}\memoryd-tray.exe"""; Flags: uninsdeletevalue; Tasks: startatlogin
Root: HKLM; Subkey: "{#EnvironmentKey}"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}"; Tasks: addtopath; Check: NeedsAddPath(ExpandConstant('{app}'))

[Run]
; runasoriginaluser: the installer is elevated, the tray must run as the user.
Filename: "{app}\memoryd-tray.exe"; Description: "Start memoryd now"; Flags: nowait postinstall skipifsilent runasoriginaluser

[UninstallRun]
Filename: "{sys}\taskkill.exe"; Parameters: "/F /T /IM memoryd-tray.exe"; Flags: runhidden; RunOnceId: "StopTray"

[Code]
function PathIndex(Dir, Paths: string): Integer;
begin
  { 1-based index of ";Dir;" in ";Paths;", case-insensitive; 0 when absent }
  Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Paths) + ';');
end;

function NeedsAddPath(Dir: string): Boolean;
var
  Paths: string;
begin
  if not RegQueryStringValue(HKEY_LOCAL_MACHINE, '{#EnvironmentKey}', 'Path', Paths) then
    Result := True
  else
    Result := PathIndex(Dir, Paths) = 0;
end;

procedure RemoveFromPath(Dir: string);
var
  Paths: string;
  P: Integer;
begin
  if not RegQueryStringValue(HKEY_LOCAL_MACHINE, '{#EnvironmentKey}', 'Path', Paths) then
    exit;
  P := PathIndex(Dir, Paths);
  if P = 0 then
    exit;
  { P is where ";Dir;" starts in the padded string, i.e. the ';' before Dir in Paths;
    the first entry has no ';' before it, so remove "Dir;" instead. }
  if P = 1 then
    Delete(Paths, 1, Length(Dir) + 1)
  else
    Delete(Paths, P - 1, Length(Dir) + 1);
  RegWriteExpandStringValue(HKEY_LOCAL_MACHINE, '{#EnvironmentKey}', 'Path', Paths);
end;

procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
begin
  if CurUninstallStep = usUninstall then
    RemoveFromPath(ExpandConstant('{app}'));
end;

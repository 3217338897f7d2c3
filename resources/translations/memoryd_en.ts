<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!--
  English for memoryd-tray: the source text itself, so the language choice "English" loads a
  catalogue like any other. Every message of memoryd_zh_CN.ts, translated as its source
  (tests/desktop/test_tray_i18n.py checks both files carry the same messages).
-->
<TS version="2.1" language="en_US" sourcelanguage="en_US">
    <context>
        <name>BrowserWindow</name>
        <message>
            <source>Alive</source>
            <translation>Alive</translation>
        </message>
        <message>
            <source>Dim</source>
            <translation>Dim</translation>
        </message>
        <message>
            <source>Soft-forgotten</source>
            <translation>Soft-forgotten</translation>
        </message>
        <message>
            <source>Forgotten</source>
            <translation>Forgotten</translation>
        </message>
        <message>
            <source>Gone</source>
            <translation>Gone</translation>
        </message>
        <message>
            <source>Not part of a supersedes chain.</source>
            <translation>Not part of a supersedes chain.</translation>
        </message>
        <message>
            <source>{mark} {date}  {title}  [{state}]  {slug}</source>
            <translation>{mark} {date}  {title}  [{state}]  {slug}</translation>
        </message>
        <message>
            <source>→ replaced by {slug}</source>
            <translation>→ replaced by {slug}</translation>
        </message>
        <message>
            <source>Supersedes waiting for a decision: {count}</source>
            <translation>Supersedes waiting for a decision: {count}</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>Title</translation>
        </message>
        <message>
            <source>Type</source>
            <translation>Type</translation>
        </message>
        <message>
            <source>State</source>
            <translation>State</translation>
        </message>
        <message>
            <source>Created</source>
            <translation>Created</translation>
        </message>
        <message>
            <source>Recalls</source>
            <translation>Recalls</translation>
        </message>
        <message>
            <source>Memories</source>
            <translation>Memories</translation>
        </message>
        <message>
            <source>Search</source>
            <translation>Search</translation>
        </message>
        <message>
            <source>All projects</source>
            <translation>All projects</translation>
        </message>
        <message>
            <source>All types</source>
            <translation>All types</translation>
        </message>
        <message>
            <source>Alive and dim</source>
            <translation>Alive and dim</translation>
        </message>
        <message>
            <source>All, with soft-forgotten</source>
            <translation>All, with soft-forgotten</translation>
        </message>
        <message>
            <source>Supersedes chain</source>
            <translation>Supersedes chain</translation>
        </message>
        <message>
            <source>Record…</source>
            <translation>Record…</translation>
        </message>
        <message>
            <source>Edit…</source>
            <translation>Edit…</translation>
        </message>
        <message>
            <source>Forget</source>
            <translation>Forget</translation>
        </message>
        <message>
            <source>Merge…</source>
            <translation>Merge…</translation>
        </message>
        <message>
            <source>Refresh</source>
            <translation>Refresh</translation>
        </message>
        <message>
            <source>Reindex</source>
            <translation>Reindex</translation>
        </message>
        <message>
            <source>Import…</source>
            <translation>Import…</translation>
        </message>
        <message>
            <source>Mark a project sensitive…</source>
            <translation>Mark a project sensitive…</translation>
        </message>
        <message>
            <source>&amp;Memory</source>
            <translation>&amp;Memory</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>Memory</translation>
        </message>
        <message>
            <source>&amp;Tools</source>
            <translation>&amp;Tools</translation>
        </message>
        <message>
            <source>{count} in {root}</source>
            <translation>{count} in {root}</translation>
        </message>
        <message>
            <source>Sensitive projects not searched without a grant: {where}</source>
            <translation>Sensitive projects not searched without a grant: {where}</translation>
        </message>
        <message>
            <source>Memories shown: {count}</source>
            <translation>Memories shown: {count}</translation>
        </message>
        <message>
            <source>{project} ({count})</source>
            <translation>{project} ({count})</translation>
        </message>
        <message>
            <source>Already recorded: {title}</source>
            <translation>Already recorded: {title}</translation>
        </message>
        <message>
            <source>Recorded: {title}</source>
            <translation>Recorded: {title}</translation>
        </message>
        <message>
            <source>Nothing changed.</source>
            <translation>Nothing changed.</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>Saved.</translation>
        </message>
        <message>
            <source>Forget memory</source>
            <translation>Forget memory</translation>
        </message>
        <message>
            <source>Forget “{title}”? Agents will no longer recall it.</source>
            <translation>Forget “{title}”? Agents will no longer recall it.</translation>
        </message>
        <message>
            <source>Forgotten.</source>
            <translation>Forgotten.</translation>
        </message>
        <message>
            <source>Merged {count} into {title}.</source>
            <translation>Merged {count} into {title}.</translation>
        </message>
        <message>
            <source>Reindexed {indexed} of {files} files; skipped {skipped}.</source>
            <translation>Reindexed {indexed} of {files} files; skipped {skipped}.</translation>
        </message>
        <message>
            <source>Reindexing…</source>
            <translation>Reindexing…</translation>
        </message>
        <message>
            <source>Reindex cancelled: the index is as it was.</source>
            <translation>Reindex cancelled: the index is as it was.</translation>
        </message>
        <message>
            <source>Imported {imported}, updated {updated}, unchanged {unchanged}.</source>
            <translation>Imported {imported}, updated {updated}, unchanged {unchanged}.</translation>
        </message>
        <message>
            <source>Skipped: {count}.</source>
            <translation>Skipped: {count}.</translation>
        </message>
        <message>
            <source>Importing…</source>
            <translation>Importing…</translation>
        </message>
        <message>
            <source>Import cancelled: what was imported stays; import again to go on.</source>
            <translation>Import cancelled: what was imported stays; import again to go on.</translation>
        </message>
        <message>
            <source>{root} is sensitive now: {count} memories encrypted.</source>
            <translation>{root} is sensitive now: {count} memories encrypted.</translation>
        </message>
        <message>
            <source>Encrypting {root}…</source>
            <translation>Encrypting {root}…</translation>
        </message>
        <message>
            <source>Stopped: the project is marked sensitive; run it again to encrypt the rest.</source>
            <translation>Stopped: the project is marked sensitive; run it again to encrypt the rest.</translation>
        </message>
        <message>
            <source>Grant…</source>
            <translation>Grant…</translation>
        </message>
        <message>
            <source>Open Sensitive projects to grant access to this project</source>
            <translation>Open Sensitive projects to grant access to this project</translation>
        </message>
        <message>
            <source>Updated</source>
            <translation>Updated</translation>
        </message>
        <message>
            <source>Triggers</source>
            <translation>Triggers</translation>
        </message>
        <message>
            <source>Tags</source>
            <translation>Tags</translation>
        </message>
        <message>
            <source>From</source>
            <translation>From</translation>
        </message>
        <message>
            <source>Show raw fields</source>
            <translation>Show raw fields</translation>
        </message>
        <message>
            <source>Learned from a {agent} session of {day}</source>
            <translation>Learned from a {agent} session of {day}</translation>
        </message>
        <message>
            <source>Learned from the session of {day}</source>
            <translation>Learned from the session of {day}</translation>
        </message>
        <message>
            <source>A {agent} session, captured as it happened</source>
            <translation>A {agent} session, captured as it happened</translation>
        </message>
        <message>
            <source>Recorded directly, not learned from a session</source>
            <translation>Recorded directly, not learned from a session</translation>
        </message>
        <message>
            <source>Imported from {source}</source>
            <translation>Imported from {source}</translation>
        </message>
        <message>
            <source>[image: {name}]</source>
            <translation>[image: {name}]</translation>
        </message>
        <message>
            <source>Select a memory to read it here.</source>
            <translation>Select a memory to read it here.</translation>
        </message>
    </context>
    <context>
        <name>Controller</name>
        <message>
            <source>Scheduled job {job} failed: {error}</source>
            <translation>Scheduled job {job} failed: {error}</translation>
        </message>
        <message>
            <source>promotions ({count})</source>
            <translation>promotions ({count})</translation>
        </message>
        <message>
            <source>duplicates ({count})</source>
            <translation>duplicates ({count})</translation>
        </message>
        <message>
            <source>expiring ({count})</source>
            <translation>expiring ({count})</translation>
        </message>
        <message>
            <source>supersedes to confirm ({count})</source>
            <translation>supersedes to confirm ({count})</translation>
        </message>
        <message>
            <source>sync conflicts ({count})</source>
            <translation>sync conflicts ({count})</translation>
        </message>
        <message>
            <source>suspect ({count})</source>
            <translation>suspect ({count})</translation>
        </message>
        <message>
            <source>, </source>
            <translation>, </translation>
        </message>
        <message>
            <source>Waiting in the weekly digest: {kinds}.</source>
            <translation>Waiting in the weekly digest: {kinds}.</translation>
        </message>
        <message>
            <source>memoryd weekly digest</source>
            <translation>memoryd weekly digest</translation>
        </message>
        <message>
            <source>Consolidation done: {summary}</source>
            <translation>Consolidation done: {summary}</translation>
        </message>
        <message>
            <source>Consolidation finished with errors: {summary}; failed: {errors}</source>
            <translation>Consolidation finished with errors: {summary}; failed: {errors}</translation>
        </message>
        <message>
            <source>The nightly consolidation is overdue: it runs in the background now.</source>
            <translation>The nightly consolidation is overdue: it runs in the background now.</translation>
        </message>
        <message>
            <source>Capture paused: agent sessions are not kept until you resume.</source>
            <translation>Capture paused: agent sessions are not kept until you resume.</translation>
        </message>
        <message>
            <source>Capture resumed.</source>
            <translation>Capture resumed.</translation>
        </message>
        <message>
            <source>Another memoryd process is already processing captures.</source>
            <translation>Another memoryd process is already processing captures.</translation>
        </message>
        <message>
            <source>Captures processed: {count}.</source>
            <translation>Captures processed: {count}.</translation>
        </message>
        <message>
            <source>Set aside as unusable: {count}.</source>
            <translation>Set aside as unusable: {count}.</translation>
        </message>
        <message>
            <source>No captures were waiting.</source>
            <translation>No captures were waiting.</translation>
        </message>
        <message>
            <source>Could not open the data folder {path}.</source>
            <translation>Could not open the data folder {path}.</translation>
        </message>
        <message>
            <source>Synced: {sent} sent; no other device has synced through this folder yet.</source>
            <translation>Synced: {sent} sent; no other device has synced through this folder yet.</translation>
        </message>
        <message>
            <source>Synced with 1 device: {sent} sent, {received} received.</source>
            <translation>Synced with 1 device: {sent} sent, {received} received.</translation>
        </message>
        <message>
            <source>Synced with {devices} devices: {sent} sent, {received} received.</source>
            <translation>Synced with {devices} devices: {sent} sent, {received} received.</translation>
        </message>
        <message>
            <source>Conflicts to resolve in the weekly review: {count}.</source>
            <translation>Conflicts to resolve in the weekly review: {count}.</translation>
        </message>
        <message>
            <source>Sealed memories waiting for their project's key: {count}.</source>
            <translation>Sealed memories waiting for their project's key: {count}.</translation>
        </message>
        <message>
            <source>Files that could not be read: {count}.</source>
            <translation>Files that could not be read: {count}.</translation>
        </message>
        <message>
            <source>Sync found new conflicts: {count}. Pick a version in the weekly review.</source>
            <translation>Sync found new conflicts: {count}. Pick a version in the weekly review.</translation>
        </message>
        <message>
            <source>Sync failed: {error}</source>
            <translation>Sync failed: {error}</translation>
        </message>
        <message>
            <source>nothing new</source>
            <translation>nothing new</translation>
        </message>
        <message>
            <source>{job} did not finish: {detail}</source>
            <translation>{job} did not finish: {detail}</translation>
        </message>
        <message>
            <source>{phase}: {error}</source>
            <translation>{phase}: {error}</translation>
        </message>
        <message>
            <source>; </source>
            <translation>; </translation>
        </message>
    </context>
    <context>
        <name>DigestWindow</name>
        <message>
            <source>Session</source>
            <translation>Session</translation>
        </message>
        <message>
            <source>Decision</source>
            <translation>Decision</translation>
        </message>
        <message>
            <source>Preference</source>
            <translation>Preference</translation>
        </message>
        <message>
            <source>Fact</source>
            <translation>Fact</translation>
        </message>
        <message>
            <source>Playbook</source>
            <translation>Playbook</translation>
        </message>
        <message>
            <source>Warning</source>
            <translation>Warning</translation>
        </message>
        <message>
            <source>alive</source>
            <translation>alive</translation>
        </message>
        <message>
            <source>dim</source>
            <translation>dim</translation>
        </message>
        <message>
            <source>soft-forgotten</source>
            <translation>soft-forgotten</translation>
        </message>
        <message>
            <source>forgotten</source>
            <translation>forgotten</translation>
        </message>
        <message>
            <source>Mean</source>
            <translation>Mean</translation>
        </message>
        <message>
            <source>Type</source>
            <translation>Type</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>Title</translation>
        </message>
        <message>
            <source>Left</source>
            <translation>Left</translation>
        </message>
        <message>
            <source>Right</source>
            <translation>Right</translation>
        </message>
        <message>
            <source>Change</source>
            <translation>Change</translation>
        </message>
        <message>
            <source>{state} → {next}</source>
            <translation>{state} → {next}</translation>
        </message>
        <message>
            <source>Due</source>
            <translation>Due</translation>
        </message>
        <message>
            <source>Idle days</source>
            <translation>Idle days</translation>
        </message>
        <message>
            <source>New</source>
            <translation>New</translation>
        </message>
        <message>
            <source>Replaces</source>
            <translation>Replaces</translation>
        </message>
        <message>
            <source>Confidence</source>
            <translation>Confidence</translation>
        </message>
        <message>
            <source>D decision-worthy, U useful in future, R recallable hooks, A accurate; 0 to 1 each.</source>
            <translation>D decision-worthy, U useful in future, R recallable hooks, A accurate; 0 to 1 each.</translation>
        </message>
        <message>
            <source>comma separated</source>
            <translation>comma separated</translation>
        </message>
        <message>
            <source>Approve</source>
            <translation>Approve</translation>
        </message>
        <message>
            <source>Write it as long-term memory (a in the list)</source>
            <translation>Write it as long-term memory (a in the list)</translation>
        </message>
        <message>
            <source>Reject</source>
            <translation>Reject</translation>
        </message>
        <message>
            <source>Drop the proposal (r in the list)</source>
            <translation>Drop the proposal (r in the list)</translation>
        </message>
        <message>
            <source>Triggers</source>
            <translation>Triggers</translation>
        </message>
        <message>
            <source>DURA  D {d}  U {u}  R {r}  A {a}   mean {mean}</source>
            <translation>DURA  D {d}  U {u}  R {r}  A {a}   mean {mean}</translation>
        </message>
        <message>
            <source>No reasoning given.</source>
            <translation>No reasoning given.</translation>
        </message>
        <message>
            <source>Replaces: {slugs}</source>
            <translation>Replaces: {slugs}</translation>
        </message>
        <message>
            <source>{slug} · {type} · created {day}</source>
            <translation>{slug} · {type} · created {day}</translation>
        </message>
        <message>
            <source>Loading…</source>
            <translation>Loading…</translation>
        </message>
        <message>
            <source>Recalled {count} times · triggers: {triggers}</source>
            <translation>Recalled {count} times · triggers: {triggers}</translation>
        </message>
        <message>
            <source>Weekly review</source>
            <translation>Weekly review</translation>
        </message>
        <message>
            <source>Refresh</source>
            <translation>Refresh</translation>
        </message>
        <message>
            <source>Reading the digest…</source>
            <translation>Reading the digest…</translation>
        </message>
        <message>
            <source>Approve all with a DURA mean of at least</source>
            <translation>Approve all with a DURA mean of at least</translation>
        </message>
        <message>
            <source>j/k move · a approve · r reject</source>
            <translation>j/k move · a approve · r reject</translation>
        </message>
        <message>
            <source>No promotions wait for review.</source>
            <translation>No promotions wait for review.</translation>
        </message>
        <message>
            <source>Merge into left</source>
            <translation>Merge into left</translation>
        </message>
        <message>
            <source>Keep the left memory; the right one is folded into it</source>
            <translation>Keep the left memory; the right one is folded into it</translation>
        </message>
        <message>
            <source>Merge into right</source>
            <translation>Merge into right</translation>
        </message>
        <message>
            <source>Keep the right memory; the left one is folded into it</source>
            <translation>Keep the right memory; the left one is folded into it</translation>
        </message>
        <message>
            <source>These two belong to different projects. Merging across projects is left to the command line: memoryd merge --force.</source>
            <translation>These two belong to different projects. Merging across projects is left to the command line: memoryd merge --force.</translation>
        </message>
        <message>
            <source>No duplicates found.</source>
            <translation>No duplicates found.</translation>
        </message>
        <message>
            <source>j/k move</source>
            <translation>j/k move</translation>
        </message>
        <message>
            <source>Keep</source>
            <translation>Keep</translation>
        </message>
        <message>
            <source>Keeping counts as a recall: the memory stays alive and its clock starts again.</source>
            <translation>Keeping counts as a recall: the memory stays alive and its clock starts again.</translation>
        </message>
        <message>
            <source>Nothing is fading this week.</source>
            <translation>Nothing is fading this week.</translation>
        </message>
        <message>
            <source>j/k move · a keep</source>
            <translation>j/k move · a keep</translation>
        </message>
        <message>
            <source>Confirm</source>
            <translation>Confirm</translation>
        </message>
        <message>
            <source>The new memory replaces the old one (a in the list)</source>
            <translation>The new memory replaces the old one (a in the list)</translation>
        </message>
        <message>
            <source>Dismiss</source>
            <translation>Dismiss</translation>
        </message>
        <message>
            <source>Both stay current (r in the list)</source>
            <translation>Both stay current (r in the list)</translation>
        </message>
        <message>
            <source>No supersedes wait for confirmation.</source>
            <translation>No supersedes wait for confirmation.</translation>
        </message>
        <message>
            <source>j/k move · a confirm · r dismiss</source>
            <translation>j/k move · a confirm · r dismiss</translation>
        </message>
        <message>
            <source>Top triggers</source>
            <translation>Top triggers</translation>
        </message>
        <message>
            <source>Rising entities</source>
            <translation>Rising entities</translation>
        </message>
        <message>
            <source>Recent supersedes</source>
            <translation>Recent supersedes</translation>
        </message>
        <message>
            <source>Recalled most</source>
            <translation>Recalled most</translation>
        </message>
        <message>
            <source>Promotions ({count})</source>
            <translation>Promotions ({count})</translation>
        </message>
        <message>
            <source>Duplicates ({count})</source>
            <translation>Duplicates ({count})</translation>
        </message>
        <message>
            <source>Expiring ({count})</source>
            <translation>Expiring ({count})</translation>
        </message>
        <message>
            <source>Supersedes to confirm ({count})</source>
            <translation>Supersedes to confirm ({count})</translation>
        </message>
        <message>
            <source>Trends</source>
            <translation>Trends</translation>
        </message>
        <message>
            <source>Approve all ({count})</source>
            <translation>Approve all ({count})</translation>
        </message>
        <message>
            <source>{since} to {until}</source>
            <translation>{since} to {until}</translation>
        </message>
        <message>
            <source>{trigger}: {hits} hits</source>
            <translation>{trigger}: {hits} hits</translation>
        </message>
        <message>
            <source>{name}: {delta} mentions</source>
            <translation>{name}: {delta} mentions</translation>
        </message>
        <message>
            <source>{old} → {new}</source>
            <translation>{old} → {new}</translation>
        </message>
        <message>
            <source>{title}: recalled {count} times</source>
            <translation>{title}: recalled {count} times</translation>
        </message>
        <message>
            <source>none</source>
            <translation>none</translation>
        </message>
        <message>
            <source>LLM today: {tokens} tokens in {calls} calls; {left} of the daily budget left.</source>
            <translation>LLM today: {tokens} tokens in {calls} calls; {left} of the daily budget left.</translation>
        </message>
        <message>
            <source>{type} “{title}” turns {next} on {day}, idle for {idle} days.</source>
            <translation>{type} “{title}” turns {next} on {day}, idle for {idle} days.</translation>
        </message>
        <message>
            <source>Does “{new}” replace “{old}”? Confidence {confidence} ({by}).</source>
            <translation>Does “{new}” replace “{old}”? Confidence {confidence} ({by}).</translation>
        </message>
        <message>
            <source>Approved “{title}” as {type}.</source>
            <translation>Approved “{title}” as {type}.</translation>
        </message>
        <message>
            <source>Rejected “{title}”.</source>
            <translation>Rejected “{title}”.</translation>
        </message>
        <message>
            <source>Approved {count} promotions.</source>
            <translation>Approved {count} promotions.</translation>
        </message>
        <message>
            <source>Not approved: {errors}</source>
            <translation>Not approved: {errors}</translation>
        </message>
        <message>
            <source>Merged “{dropped}” into “{kept}”.</source>
            <translation>Merged “{dropped}” into “{kept}”.</translation>
        </message>
        <message>
            <source>Kept “{title}”.</source>
            <translation>Kept “{title}”.</translation>
        </message>
        <message>
            <source>Confirmed: “{new}” replaces “{old}”.</source>
            <translation>Confirmed: “{new}” replaces “{old}”.</translation>
        </message>
        <message>
            <source>Dismissed: “{old}” stays current.</source>
            <translation>Dismissed: “{old}” stays current.</translation>
        </message>
        <message>
            <source>Grant…</source>
            <translation>Grant…</translation>
        </message>
        <message>
            <source>Open Sensitive projects to grant access to this project</source>
            <translation>Open Sensitive projects to grant access to this project</translation>
        </message>
        <message>
            <source>Approve all</source>
            <translation>Approve all</translation>
        </message>
        <message>
            <source>Approve {count} promotions with a DURA mean of at least {threshold}?</source>
            <translation>Approve {count} promotions with a DURA mean of at least {threshold}?</translation>
        </message>
        <message>
            <source>Each becomes a long-term memory.</source>
            <translation>Each becomes a long-term memory.</translation>
        </message>
        <message>
            <source>(deleted)</source>
            <translation>(deleted)</translation>
        </message>
        <message>
            <source>(sealed)</source>
            <translation>(sealed)</translation>
        </message>
        <message>
            <source>“{title}”, changed {time}</source>
            <translation>“{title}”, changed {time}</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>Memory</translation>
        </message>
        <message>
            <source>In use since</source>
            <translation>In use since</translation>
        </message>
        <message>
            <source>Copies</source>
            <translation>Copies</translation>
        </message>
        <message>
            <source>This memory was changed on two devices. The newer change is in use; the other is kept as a copy until you pick one. Every device follows your pick at its next sync.</source>
            <translation>This memory was changed on two devices. The newer change is in use; the other is kept as a copy until you pick one. Every device follows your pick at its next sync.</translation>
        </message>
        <message>
            <source>Keep this version</source>
            <translation>Keep this version</translation>
        </message>
        <message>
            <source>Keep the version in use and drop the copies</source>
            <translation>Keep the version in use and drop the copies</translation>
        </message>
        <message>
            <source>In use</source>
            <translation>In use</translation>
        </message>
        <message>
            <source>Show versions</source>
            <translation>Show versions</translation>
        </message>
        <message>
            <source>Read every version, side by side</source>
            <translation>Read every version, side by side</translation>
        </message>
        <message>
            <source>Use this copy</source>
            <translation>Use this copy</translation>
        </message>
        <message>
            <source>Take this copy instead of the version in use</source>
            <translation>Take this copy instead of the version in use</translation>
        </message>
        <message>
            <source>This version deletes the memory.</source>
            <translation>This version deletes the memory.</translation>
        </message>
        <message>
            <source>This version is sealed: its project is sensitive.</source>
            <translation>This version is sealed: its project is sensitive.</translation>
        </message>
        <message>
            <source>In use, changed {time}</source>
            <translation>In use, changed {time}</translation>
        </message>
        <message>
            <source>Copy {rev}, changed {time}</source>
            <translation>Copy {rev}, changed {time}</translation>
        </message>
        <message>
            <source>Versions of {slug}</source>
            <translation>Versions of {slug}</translation>
        </message>
        <message>
            <source>Compare the version in use with:</source>
            <translation>Compare the version in use with:</translation>
        </message>
        <message>
            <source>Sync conflicts ({count})</source>
            <translation>Sync conflicts ({count})</translation>
        </message>
        <message>
            <source>Kept the version of “{title}” in use; its copies are dropped.</source>
            <translation>Kept the version of “{title}” in use; its copies are dropped.</translation>
        </message>
        <message>
            <source>“{title}” now uses the copy changed {time}.</source>
            <translation>“{title}” now uses the copy changed {time}.</translation>
        </message>
        <message>
            <source>No sync conflicts.</source>
            <translation>No sync conflicts.</translation>
        </message>
        <message>
            <source>Project</source>
            <translation>Project</translation>
        </message>
        <message>
            <source>Date</source>
            <translation>Date</translation>
        </message>
        <message>
            <source>Suspect ({count})</source>
            <translation>Suspect ({count})</translation>
        </message>
        <message>
            <source>“{title}” is no longer marked suspect.</source>
            <translation>“{title}” is no longer marked suspect.</translation>
        </message>
        <message>
            <source>Forgot “{title}”.</source>
            <translation>Forgot “{title}”.</translation>
        </message>
        <message>
            <source>No suspect memories.</source>
            <translation>No suspect memories.</translation>
        </message>
        <message>
            <source>j/k move · a not suspicious · r forget</source>
            <translation>j/k move · a not suspicious · r forget</translation>
        </message>
        <message>
            <source>title</source>
            <translation>title</translation>
        </message>
        <message>
            <source>body</source>
            <translation>body</translation>
        </message>
        <message>
            <source>triggers</source>
            <translation>triggers</translation>
        </message>
        <message>
            <source>tags</source>
            <translation>tags</translation>
        </message>
        <message>
            <source>title and body</source>
            <translation>title and body</translation>
        </message>
        <message>
            <source>category</source>
            <translation>category</translation>
        </message>
        <message>
            <source>user</source>
            <translation>user</translation>
        </message>
        <message>
            <source>assistant</source>
            <translation>assistant</translation>
        </message>
        <message>
            <source>tool</source>
            <translation>tool</translation>
        </message>
        <message>
            <source>turn {number} ({role})</source>
            <translation>turn {number} ({role})</translation>
        </message>
        <message>
            <source>bidi override</source>
            <translation>bidi override</translation>
        </message>
        <message>
            <source>unbalanced bidi isolate</source>
            <translation>unbalanced bidi isolate</translation>
        </message>
        <message>
            <source>bidi isolate across lines</source>
            <translation>bidi isolate across lines</translation>
        </message>
        <message>
            <source>zero-width joiner inside a word</source>
            <translation>zero-width joiner inside a word</translation>
        </message>
        <message>
            <source>zero-width characters</source>
            <translation>zero-width characters</translation>
        </message>
        <message>
            <source>zero-width characters inside words</source>
            <translation>zero-width characters inside words</translation>
        </message>
        <message>
            <source>deprecated format character</source>
            <translation>deprecated format character</translation>
        </message>
        <message>
            <source>tag characters</source>
            <translation>tag characters</translation>
        </message>
        <message>
            <source>variation selectors</source>
            <translation>variation selectors</translation>
        </message>
        <message>
            <source>hidden characters: {kind}</source>
            <translation>hidden characters: {kind}</translation>
        </message>
        <message>
            <source>hidden characters: {kind} ({count} removed)</source>
            <translation>hidden characters: {kind} ({count} removed)</translation>
        </message>
        <message>
            <source>in the hidden text: {kind}</source>
            <translation>in the hidden text: {kind}</translation>
        </message>
        <message>
            <source>in base64: {kind}</source>
            <translation>in base64: {kind}</translation>
        </message>
        <message>
            <source>instructions addressed to an AI</source>
            <translation>instructions addressed to an AI</translation>
        </message>
        <message>
            <source>claims system or developer authority</source>
            <translation>claims system or developer authority</translation>
        </message>
        <message>
            <source>chat role markup</source>
            <translation>chat role markup</translation>
        </message>
        <message>
            <source>fake tool-call markup</source>
            <translation>fake tool-call markup</translation>
        </message>
        <message>
            <source>addressed to an AI reader</source>
            <translation>addressed to an AI reader</translation>
        </message>
        <message>
            <source>instructions to a future session</source>
            <translation>instructions to a future session</translation>
        </message>
        <message>
            <source>speaks for the user</source>
            <translation>speaks for the user</translation>
        </message>
        <message>
            <source>asks to act without telling the user</source>
            <translation>asks to act without telling the user</translation>
        </message>
        <message>
            <source>asks to act secretly</source>
            <translation>asks to act secretly</translation>
        </message>
        <message>
            <source>asks to send secrets out</source>
            <translation>asks to send secrets out</translation>
        </message>
        <message>
            <source>asks to reveal secrets</source>
            <translation>asks to reveal secrets</translation>
        </message>
        <message>
            <source>risky action</source>
            <translation>risky action</translation>
        </message>
        <message>
            <source>gives an AI a new role</source>
            <translation>gives an AI a new role</translation>
        </message>
        <message>
            <source>orders an AI</source>
            <translation>orders an AI</translation>
        </message>
        <message>
            <source>asks to decode and follow hidden text</source>
            <translation>asks to decode and follow hidden text</translation>
        </message>
        <message>
            <source>hidden in a comment</source>
            <translation>hidden in a comment</translation>
        </message>
        <message>
            <source>hidden text spells out words</source>
            <translation>hidden text spells out words</translation>
        </message>
        <message>
            <source>and {count} more</source>
            <translation>and {count} more</translation>
        </message>
        <message>
            <source>Type: {type}</source>
            <translation>Type: {type}</translation>
        </message>
        <message>
            <source>Triggers: {triggers}</source>
            <translation>Triggers: {triggers}</translation>
        </message>
        <message>
            <source>Tags: {tags}</source>
            <translation>Tags: {tags}</translation>
        </message>
        <message>
            <source>recorded directly</source>
            <translation>recorded directly</translation>
        </message>
        <message>
            <source>{where}: {kind}</source>
            <translation>{where}: {kind}</translation>
        </message>
        <message>
            <source>Its text reads as if written for an AI. Until you decide, agents are not shown it at start-up, and it is not exported or promoted.</source>
            <translation>Its text reads as if written for an AI. Until you decide, agents are not shown it at start-up, and it is not exported or promoted.</translation>
        </message>
        <message>
            <source>Why it was flagged</source>
            <translation>Why it was flagged</translation>
        </message>
        <message>
            <source>Not suspicious</source>
            <translation>Not suspicious</translation>
        </message>
        <message>
            <source>You vouch for it: agents may see it again (a in the list)</source>
            <translation>You vouch for it: agents may see it again (a in the list)</translation>
        </message>
        <message>
            <source>Forget</source>
            <translation>Forget</translation>
        </message>
        <message>
            <source>Remove it from memory (r in the list)</source>
            <translation>Remove it from memory (r in the list)</translation>
        </message>
        <message>
            <source>{slug} · project {project} · {type} · {source} · created {day}</source>
            <translation>{slug} · project {project} · {type} · {source} · created {day}</translation>
        </message>
        <message>
            <source>Forget memory</source>
            <translation>Forget memory</translation>
        </message>
        <message>
            <source>Forget “{title}”? Agents will no longer recall it.</source>
            <translation>Forget “{title}”? Agents will no longer recall it.</translation>
        </message>
        <message>
        <source>Not duplicates</source>
        <translation>Not duplicates</translation>
    </message>
    <message>
        <source>These memories differ: stop proposing this group</source>
        <translation>These memories differ: stop proposing this group</translation>
    </message>
    <message>
        <source>Marked {count} memories as not duplicates.</source>
        <translation>Marked {count} memories as not duplicates.</translation>
    </message>
    <message>
        <source>Undone: “{title}” is no longer rejected and waits for review.</source>
        <translation>Undone: “{title}” is no longer rejected and waits for review.</translation>
    </message>
    <message>
        <source>Undone: “{title}” is no longer approved and waits for review.</source>
        <translation>Undone: “{title}” is no longer approved and waits for review.</translation>
    </message>
    <message>
        <source>Undone: “{title}” is back, and the merge is taken back.</source>
        <translation>Undone: “{title}” is back, and the merge is taken back.</translation>
    </message>
    <message>
        <source>Undone: the group is proposed as duplicates again.</source>
        <translation>Undone: the group is proposed as duplicates again.</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>Undo</translation>
    </message>
    <message>
        <source>Undo the last review action taken here (Ctrl+Z)</source>
        <translation>Undo the last review action taken here (Ctrl+Z)</translation>
    </message>
    <message>
        <source>Merge memories</source>
        <translation>Merge memories</translation>
    </message>
    <message>
        <source>Merge “{dropped}” into “{kept}”?</source>
        <translation>Merge “{dropped}” into “{kept}”?</translation>
    </message>
    <message>
        <source>“{kept}” takes over the other's triggers, tags and recalls. Undo (Ctrl+Z) brings “{dropped}” back.</source>
        <translation>“{kept}” takes over the other's triggers, tags and recalls. Undo (Ctrl+Z) brings “{dropped}” back.</translation>
    </message>
    <message>
        <source>Merge</source>
        <translation>Merge</translation>
    </message>
</context>
    <context>
        <name>GrantDialog</name>
        <message>
            <source>(sealed with the passphrase until access is granted)</source>
            <translation>(sealed with the passphrase until access is granted)</translation>
        </message>
        <message>
            <source>Allow access to a sensitive project</source>
            <translation>Allow access to a sensitive project</translation>
        </message>
        <message>
            <source>Folder:</source>
            <translation>Folder:</translation>
        </message>
        <message>
            <source>Asked by:</source>
            <translation>Asked by:</translation>
        </message>
        <message>
            <source>To:</source>
            <translation>To:</translation>
        </message>
        <message>
            <source>Once (90 seconds)</source>
            <translation>Once (90 seconds)</translation>
        </message>
        <message>
            <source>For this session (8 hours)</source>
            <translation>For this session (8 hours)</translation>
        </message>
        <message>
            <source>For a task, until revoked:</source>
            <translation>For a task, until revoked:</translation>
        </message>
        <message>
            <source>task name, e.g. year-end</source>
            <translation>task name, e.g. year-end</translation>
        </message>
        <message>
            <source>Allow for how long?</source>
            <translation>Allow for how long?</translation>
        </message>
        <message>
            <source>Allow</source>
            <translation>Allow</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Deny</translation>
        </message>
        <message>
            <source>Allow access to the sensitive project “{project}”?</source>
            <translation>Allow access to the sensitive project “{project}”?</translation>
        </message>
        <message>
            <source>Project:</source>
            <translation>Project:</translation>
        </message>
        <message>
            <source>read a memory</source>
            <translation>read a memory</translation>
        </message>
        <message>
            <source>search memories</source>
            <translation>search memories</translation>
        </message>
        <message>
            <source>read where memories were recalled</source>
            <translation>read where memories were recalled</translation>
        </message>
        <message>
            <source>read a memory's history</source>
            <translation>read a memory's history</translation>
        </message>
        <message>
            <source>write the project's start-up snapshot</source>
            <translation>write the project's start-up snapshot</translation>
        </message>
        <message>
            <source>change a memory</source>
            <translation>change a memory</translation>
        </message>
        <message>
            <source>forget a memory</source>
            <translation>forget a memory</translation>
        </message>
        <message>
            <source>merge memories</source>
            <translation>merge memories</translation>
        </message>
        <message>
            <source>approve a proposed memory</source>
            <translation>approve a proposed memory</translation>
        </message>
        <message>
            <source>mark a memory as replaced</source>
            <translation>mark a memory as replaced</translation>
        </message>
        <message>
            <source>undo a review decision</source>
            <translation>undo a review decision</translation>
        </message>
        <message>
            <source>clear a memory flagged as suspect</source>
            <translation>clear a memory flagged as suspect</translation>
        </message>
        <message>
            <source>Passphrase of this project:</source>
            <translation>Passphrase of this project:</translation>
        </message>
    </context>
    <context>
        <name>GrantServer</name>
        <message>
            <source>{who}, process {pid}</source>
            <translation>{who}, process {pid}</translation>
        </message>
    <message>
        <source>Allow</source>
        <translation>Allow</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>Deny</translation>
    </message>
        <message>
            <source>Send a sensitive project to the LLM?</source>
            <translation>Send a sensitive project to the LLM?</translation>
        </message>
        <message>
            <source>{who} asks to let {endpoint} score the sessions of the sensitive project {project}. Their text will leave this computer each time a session there is captured. Allow only if you asked for this yourself right now.</source>
            <translation>{who} asks to let {endpoint} score the sessions of the sensitive project {project}. Their text will leave this computer each time a session there is captured. Allow only if you asked for this yourself right now.</translation>
        </message>
        <message>
            <source>Set the grant PIN?</source>
            <translation>Set the grant PIN?</translation>
        </message>
        <message>
            <source>A request to set the grant PIN comes from {who}. Whoever knows it can let agents read your sensitive projects without this app. Allow only if you are setting it yourself right now.</source>
            <translation>A request to set the grant PIN comes from {who}. Whoever knows it can let agents read your sensitive projects without this app. Allow only if you are setting it yourself right now.</translation>
        </message>
        <message>
            <source>This passphrase does not open the project. Type it again.</source>
            <translation>This passphrase does not open the project. Type it again.</translation>
        </message>
        <message>
            <source>the memoryd command</source>
            <translation>the memoryd command</translation>
        </message>
        <message>
            <source>the MCP server</source>
            <translation>the MCP server</translation>
        </message>
        <message>
            <source>a capture hook</source>
            <translation>a capture hook</translation>
        </message>
        <message>
            <source>this app</source>
            <translation>this app</translation>
        </message>
        <message>
            <source>{actor} ({agent})</source>
            <translation>{actor} ({agent})</translation>
        </message>
</context>
    <context>
        <name>IdentityWindow</name>
        <message>
            <source>manual</source>
            <translation>manual</translation>
        </message>
        <message>
            <source>weekly</source>
            <translation>weekly</translation>
        </message>
        <message>
            <source>after an event</source>
            <translation>after an event</translation>
        </message>
        <message>
            <source>Identity profile</source>
            <translation>Identity profile</translation>
        </message>
        <message>
            <source>Current profile</source>
            <translation>Current profile</translation>
        </message>
        <message>
            <source>Versions</source>
            <translation>Versions</translation>
        </message>
        <message>
            <source>Monthly reports</source>
            <translation>Monthly reports</translation>
        </message>
        <message>
            <source>Rewrite now</source>
            <translation>Rewrite now</translation>
        </message>
        <message>
            <source>Write the profile again from the memories, as the weekly job does.</source>
            <translation>Write the profile again from the memories, as the weekly job does.</translation>
        </message>
        <message>
            <source>Generate this month's report</source>
            <translation>Generate this month's report</translation>
        </message>
        <message>
            <source>Reading the profile…</source>
            <translation>Reading the profile…</translation>
        </message>
        <message>
            <source>Version</source>
            <translation>Version</translation>
        </message>
        <message>
            <source>Written</source>
            <translation>Written</translation>
        </message>
        <message>
            <source>Trigger</source>
            <translation>Trigger</translation>
        </message>
        <message>
            <source>Change</source>
            <translation>Change</translation>
        </message>
        <message>
            <source>Sources</source>
            <translation>Sources</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>Compare</translation>
        </message>
        <message>
            <source>with</source>
            <translation>with</translation>
        </message>
        <message>
            <source>Could not read the profile.</source>
            <translation>Could not read the profile.</translation>
        </message>
        <message>
            <source>No identity profile yet. "Rewrite now" writes the first one from your memories.</source>
            <translation>No identity profile yet. "Rewrite now" writes the first one from your memories.</translation>
        </message>
        <message>
            <source>Version {version}, written {when} ({trigger}).</source>
            <translation>Version {version}, written {when} ({trigger}).</translation>
        </message>
        <message>
            <source>Change: {summary}.</source>
            <translation>Change: {summary}.</translation>
        </message>
        <message>
            <source>Drawn from {count} memories.</source>
            <translation>Drawn from {count} memories.</translation>
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
            <translation>Only one version so far: nothing to compare.</translation>
        </message>
        <message>
            <source>No versions yet.</source>
            <translation>No versions yet.</translation>
        </message>
        <message>
            <source>No monthly report yet: "Generate this month's report" writes one.</source>
            <translation>No monthly report yet: "Generate this month's report" writes one.</translation>
        </message>
        <message>
            <source>Reading versions…</source>
            <translation>Reading versions…</translation>
        </message>
        <message>
            <source>{added} line(s) added, {removed} removed.</source>
            <translation>{added} line(s) added, {removed} removed.</translation>
        </message>
        <message>
            <source>{period}, generated {when}.</source>
            <translation>{period}, generated {when}.</translation>
        </message>
        <message>
            <source>Versions: {versions}. Superseded: {supersedes}. Entities new: {added}, gone: {dropped}.</source>
            <translation>Versions: {versions}. Superseded: {supersedes}. Entities new: {added}, gone: {dropped}.</translation>
        </message>
        <message>
            <source>Rewriting the profile…</source>
            <translation>Rewriting the profile…</translation>
        </message>
        <message>
            <source>Version {version} written: {summary}.</source>
            <translation>Version {version} written: {summary}.</translation>
        </message>
        <message>
            <source>Nothing new: the profile stays at version {version}.</source>
            <translation>Nothing new: the profile stays at version {version}.</translation>
        </message>
        <message>
            <source>Writing this month's report…</source>
            <translation>Writing this month's report…</translation>
        </message>
        <message>
            <source>Report for {period} written.</source>
            <translation>Report for {period} written.</translation>
        </message>
        <message>
            <source>first version</source>
            <translation>first version</translation>
        </message>
        <message>
            <source>rewritten by rules: a project was marked sensitive</source>
            <translation>rewritten by rules: a project was marked sensitive</translation>
        </message>
        <message>
            <source>{added} line(s) added, {removed} removed</source>
            <translation>{added} line(s) added, {removed} removed</translation>
        </message>
    </context>
    <context>
        <name>MemoryDialogs</name>
        <message>
            <source>Browse…</source>
            <translation>Browse…</translation>
        </message>
        <message>
            <source>Choose a folder</source>
            <translation>Choose a folder</translation>
        </message>
        <message>
            <source>Edit memory</source>
            <translation>Edit memory</translation>
        </message>
        <message>
            <source>Record a memory</source>
            <translation>Record a memory</translation>
        </message>
        <message>
            <source>comma-separated phrases</source>
            <translation>comma-separated phrases</translation>
        </message>
        <message>
            <source>comma-separated</source>
            <translation>comma-separated</translation>
        </message>
        <message>
            <source>the project this memory belongs to</source>
            <translation>the project this memory belongs to</translation>
        </message>
        <message>
            <source>Type</source>
            <translation>Type</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>Title</translation>
        </message>
        <message>
            <source>Body</source>
            <translation>Body</translation>
        </message>
        <message>
            <source>Triggers</source>
            <translation>Triggers</translation>
        </message>
        <message>
            <source>Tags</source>
            <translation>Tags</translation>
        </message>
        <message>
            <source>Project folder</source>
            <translation>Project folder</translation>
        </message>
        <message>
            <source>Merge memories</source>
            <translation>Merge memories</translation>
        </message>
        <message>
            <source>{title} ({slug})</source>
            <translation>{title} ({slug})</translation>
        </message>
        <message>
            <source>Merge across projects</source>
            <translation>Merge across projects</translation>
        </message>
        <message>
            <source>Keep</source>
            <translation>Keep</translation>
        </message>
        <message>
            <source>The other memories are merged into the one kept (their triggers, tags and recalls) and then removed.</source>
            <translation>The other memories are merged into the one kept (their triggers, tags and recalls) and then removed.</translation>
        </message>
        <message>
            <source>Import memories</source>
            <translation>Import memories</translation>
        </message>
        <message>
            <source>Codex sessions</source>
            <translation>Codex sessions</translation>
        </message>
        <message>
            <source>OpenClaw workspace</source>
            <translation>OpenClaw workspace</translation>
        </message>
        <message>
            <source>memory-system store</source>
            <translation>memory-system store</translation>
        </message>
        <message>
            <source>agent-memory store</source>
            <translation>agent-memory store</translation>
        </message>
        <message>
            <source>Import from</source>
            <translation>Import from</translation>
        </message>
        <message>
            <source>Folder</source>
            <translation>Folder</translation>
        </message>
        <message>
            <source>Into project</source>
            <translation>Into project</translation>
        </message>
        <message>
            <source>empty: ~/.codex</source>
            <translation>empty: ~/.codex</translation>
        </message>
        <message>
            <source>required</source>
            <translation>required</translation>
        </message>
        <message>
            <source>empty: as the source says</source>
            <translation>empty: as the source says</translation>
        </message>
        <message>
            <source>Mark a project sensitive</source>
            <translation>Mark a project sensitive</translation>
        </message>
        <message>
            <source>Passphrase (optional)</source>
            <translation>Passphrase (optional)</translation>
        </message>
        <message>
            <source>Repeat passphrase</source>
            <translation>Repeat passphrase</translation>
        </message>
        <message>
            <source>Its memories are encrypted and need a grant to be read. Without a passphrase the key is kept in the OS keyring. A passphrase cannot be recovered.</source>
            <translation>Its memories are encrypted and need a grant to be read. Without a passphrase the key is kept in the OS keyring. A passphrase cannot be recovered.</translation>
        </message>
    </context>
    <context>
        <name>MemoryType</name>
        <message>
            <source>Sessions</source>
            <translation>Sessions</translation>
        </message>
        <message>
            <source>Decisions</source>
            <translation>Decisions</translation>
        </message>
        <message>
            <source>Preferences</source>
            <translation>Preferences</translation>
        </message>
        <message>
            <source>Facts</source>
            <translation>Facts</translation>
        </message>
        <message>
            <source>Playbooks</source>
            <translation>Playbooks</translation>
        </message>
        <message>
            <source>Warnings</source>
            <translation>Warnings</translation>
        </message>
        <message>
            <source>Session</source>
            <translation>Session</translation>
        </message>
        <message>
            <source>Decision</source>
            <translation>Decision</translation>
        </message>
        <message>
            <source>Preference</source>
            <translation>Preference</translation>
        </message>
        <message>
            <source>Fact</source>
            <translation>Fact</translation>
        </message>
        <message>
            <source>Playbook</source>
            <translation>Playbook</translation>
        </message>
        <message>
            <source>Warning</source>
            <translation>Warning</translation>
        </message>
    </context>
    <context>
        <name>ProgressPanel</name>
        <message>
            <source>Cancel</source>
            <translation>Cancel</translation>
        </message>
        <message>
            <source>Cancelling…</source>
            <translation>Cancelling…</translation>
        </message>
    </context>
    <context>
        <name>ScopesWindow</name>
        <message>
            <source>Key in the OS keyring</source>
            <translation>Key in the OS keyring</translation>
        </message>
        <message>
            <source>Passphrase</source>
            <translation>Passphrase</translation>
        </message>
        <message>
            <source>once, until {time}</source>
            <translation>once, until {time}</translation>
        </message>
        <message>
            <source>session, until {time}</source>
            <translation>session, until {time}</translation>
        </message>
        <message>
            <source>task “{task}”, until revoked</source>
            <translation>task “{task}”, until revoked</translation>
        </message>
        <message>
            <source>Locked</source>
            <translation>Locked</translation>
        </message>
        <message>
            <source>Sensitive projects</source>
            <translation>Sensitive projects</translation>
        </message>
        <message>
            <source>The memories of these projects are encrypted. Agents and the command line read them only while a grant is live.</source>
            <translation>The memories of these projects are encrypted. Agents and the command line read them only while a grant is live.</translation>
        </message>
        <message>
            <source>Path</source>
            <translation>Path</translation>
        </message>
        <message>
            <source>Protection</source>
            <translation>Protection</translation>
        </message>
        <message>
            <source>Marked</source>
            <translation>Marked</translation>
        </message>
        <message>
            <source>Access</source>
            <translation>Access</translation>
        </message>
        <message>
            <source>No project is marked sensitive.</source>
            <translation>No project is marked sensitive.</translation>
        </message>
        <message>
            <source>Grant…</source>
            <translation>Grant…</translation>
        </message>
        <message>
            <source>Revoke</source>
            <translation>Revoke</translation>
        </message>
        <message>
            <source>End every live grant of this project.</source>
            <translation>End every live grant of this project.</translation>
        </message>
        <message>
            <source>Unmark…</source>
            <translation>Unmark…</translation>
        </message>
        <message>
            <source>Refresh</source>
            <translation>Refresh</translation>
        </message>
        <message>
            <source>Decrypt this project's memories and stop protecting it.</source>
            <translation>Decrypt this project's memories and stop protecting it.</translation>
        </message>
        <message>
            <source>Grant access first: unmarking reads every memory to decrypt it.</source>
            <translation>Grant access first: unmarking reads every memory to decrypt it.</translation>
        </message>
        <message>
            <source>memoryd tray (you)</source>
            <translation>memoryd tray (you)</translation>
        </message>
        <message>
            <source>let agents and the command line read its memories</source>
            <translation>let agents and the command line read its memories</translation>
        </message>
        <message>
            <source>Access granted to {root}: {grant}.</source>
            <translation>Access granted to {root}: {grant}.</translation>
        </message>
        <message>
            <source>Note: {warning}.</source>
            <translation>Note: {warning}.</translation>
        </message>
        <message>
            <source>Grants revoked for {root}: {count}.</source>
            <translation>Grants revoked for {root}: {count}.</translation>
        </message>
        <message>
            <source>Unmark a sensitive project</source>
            <translation>Unmark a sensitive project</translation>
        </message>
        <message>
            <source>Stop protecting {root}?</source>
            <translation>Stop protecting {root}?</translation>
        </message>
        <message>
            <source>Its memories are decrypted and stored as plain files again, and its key is deleted. Agents can then read them without a grant.</source>
            <translation>Its memories are decrypted and stored as plain files again, and its key is deleted. Agents can then read them without a grant.</translation>
        </message>
        <message>
            <source>Unmark</source>
            <translation>Unmark</translation>
        </message>
        <message>
            <source>Decrypting {root}…</source>
            <translation>Decrypting {root}…</translation>
        </message>
        <message>
            <source>{root} is no longer sensitive; memories decrypted: {count}.</source>
            <translation>{root} is no longer sensitive; memories decrypted: {count}.</translation>
        </message>
        <message>
        <source>Here (rules)</source>
        <translation>Here (rules)</translation>
    </message>
    <message>
        <source>Their text will leave this computer each time a session there is captured. If the provider or its URL changes, they are kept here again.</source>
        <translation>Their text will leave this computer each time a session there is captured. If the provider or its URL changes, they are kept here again.</translation>
    </message>
    <message>
        <source>Sessions scored</source>
        <translation>Sessions scored</translation>
    </message>
    <message>
        <source>Keep sessions here</source>
        <translation>Keep sessions here</translation>
    </message>
    <message>
        <source>Score with the LLM…</source>
        <translation>Score with the LLM…</translation>
    </message>
    <message>
        <source>Stop sending this project&apos;s sessions to the LLM provider.</source>
        <translation>Stop sending this project&apos;s sessions to the LLM provider.</translation>
    </message>
    <message>
        <source>Send this project&apos;s sessions to the LLM provider for scoring (they leave this computer).</source>
        <translation>Send this project&apos;s sessions to the LLM provider for scoring (they leave this computer).</translation>
    </message>
    <message>
        <source>No LLM provider is configured: sessions are scored here by the rules.</source>
        <translation>No LLM provider is configured: sessions are scored here by the rules.</translation>
    </message>
    <message>
        <source>Send the sessions of {root} to {endpoint}?</source>
        <translation>Send the sessions of {root} to {endpoint}?</translation>
    </message>
    <message>
        <source>Sessions of {root} are scored by {endpoint}.</source>
        <translation>Sessions of {root} are scored by {endpoint}.</translation>
    </message>
    <message>
        <source>Sessions of {root} are scored here by the rules.</source>
        <translation>Sessions of {root} are scored here by the rules.</translation>
    </message>
    </context>
    <context>
        <name>SettingsDialog</name>
        <message>
            <source>never</source>
            <translation>never</translation>
        </message>
        <message>
            <source>Rules only (no LLM)</source>
            <translation>Rules only (no LLM)</translation>
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
            <translation>Ollama (local)</translation>
        </message>
        <message>
            <source>Nightly consolidation</source>
            <translation>Nightly consolidation</translation>
        </message>
        <message>
            <source>Weekly digest</source>
            <translation>Weekly digest</translation>
        </message>
        <message>
            <source>Identity rewrite</source>
            <translation>Identity rewrite</translation>
        </message>
        <message>
            <source>Monthly report</source>
            <translation>Monthly report</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>Settings</translation>
        </message>
        <message>
            <source>LLM</source>
            <translation>LLM</translation>
        </message>
        <message>
            <source>Email</source>
            <translation>Email</translation>
        </message>
        <message>
            <source>Schedules</source>
            <translation>Schedules</translation>
        </message>
        <message>
            <source>Sync</source>
            <translation>Sync</translation>
        </message>
        <message>
            <source>General</source>
            <translation>General</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Save</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Cancel</translation>
        </message>
        <message>
            <source>The provider's model name</source>
            <translation>The provider's model name</translation>
        </message>
        <message>
            <source>Paste a new key to store it</source>
            <translation>Paste a new key to store it</translation>
        </message>
        <message>
            <source>Remove key</source>
            <translation>Remove key</translation>
        </message>
        <message>
            <source>Provider:</source>
            <translation>Provider:</translation>
        </message>
        <message>
            <source>Model:</source>
            <translation>Model:</translation>
        </message>
        <message>
            <source>API key:</source>
            <translation>API key:</translation>
        </message>
        <message>
            <source>API keys are kept in the OS keyring, never in config.toml.</source>
            <translation>API keys are kept in the OS keyring, never in config.toml.</translation>
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
            <translation>None (unencrypted)</translation>
        </message>
        <message>
            <source>Addresses, separated by commas</source>
            <translation>Addresses, separated by commas</translation>
        </message>
        <message>
            <source>Leave empty to keep the stored password</source>
            <translation>Leave empty to keep the stored password</translation>
        </message>
        <message>
            <source>SMTP server:</source>
            <translation>SMTP server:</translation>
        </message>
        <message>
            <source>Port:</source>
            <translation>Port:</translation>
        </message>
        <message>
            <source>Security:</source>
            <translation>Security:</translation>
        </message>
        <message>
            <source>User:</source>
            <translation>User:</translation>
        </message>
        <message>
            <source>Password:</source>
            <translation>Password:</translation>
        </message>
        <message>
            <source>From:</source>
            <translation>From:</translation>
        </message>
        <message>
            <source>To:</source>
            <translation>To:</translation>
        </message>
        <message>
            <source>The weekly digest is mailed here. The password is kept in the OS keyring.</source>
            <translation>The weekly digest is mailed here. The password is kept in the OS keyring.</translation>
        </message>
        <message>
            <source>No sync folder</source>
            <translation>No sync folder</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>Choose…</translation>
        </message>
        <message>
            <source>Sync folder:</source>
            <translation>Sync folder:</translation>
        </message>
        <message>
            <source>Leave it empty to stop syncing.</source>
            <translation>Leave it empty to stop syncing.</translation>
        </message>
        <message>
            <source>Start memoryd when I log in</source>
            <translation>Start memoryd when I log in</translation>
        </message>
        <message>
            <source>Starting at login is not available in this installation.</source>
            <translation>Starting at login is not available in this installation.</translation>
        </message>
        <message>
            <source>Follow system</source>
            <translation>Follow system</translation>
        </message>
        <message>
            <source>Language:</source>
            <translation>Language:</translation>
        </message>
        <message>
            <source>A new language applies the next time memoryd starts.</source>
            <translation>A new language applies the next time memoryd starts.</translation>
        </message>
        <message>
            <source>Reading settings…</source>
            <translation>Reading settings…</translation>
        </message>
        <message>
            <source>minute hour day month weekday</source>
            <translation>minute hour day month weekday</translation>
        </message>
        <message>
            <source>These jobs are run by the timers `memoryd setup auto-install` installed ({timers}), not by the tray.</source>
            <translation>These jobs are run by the timers `memoryd setup auto-install` installed ({timers}), not by the tray.</translation>
        </message>
        <message>
            <source>Next run: {when}</source>
            <translation>Next run: {when}</translation>
        </message>
        <message>
            <source>Runs with the nightly consolidation when due (next due: {when})</source>
            <translation>Runs with the nightly consolidation when due (next due: {when})</translation>
        </message>
        <message>
            <source>Last run failed: {error}</source>
            <translation>Last run failed: {error}</translation>
        </message>
        <message>
            <source>Last run: {when}</source>
            <translation>Last run: {when}</translation>
        </message>
        <message>
            <source>Could not read the settings: {error}</source>
            <translation>Could not read the settings: {error}</translation>
        </message>
        <message>
            <source>{provider} takes no API key.</source>
            <translation>{provider} takes no API key.</translation>
        </message>
        <message>
            <source>The stored key will be removed when you save.</source>
            <translation>The stored key will be removed when you save.</translation>
        </message>
        <message>
            <source>A key is stored in the OS keyring.</source>
            <translation>A key is stored in the OS keyring.</translation>
        </message>
        <message>
            <source>No key stored yet.</source>
            <translation>No key stored yet.</translation>
        </message>
        <message>
            <source>Choose the sync folder</source>
            <translation>Choose the sync folder</translation>
        </message>
        <message>
            <source>The settings have not been read yet.</source>
            <translation>The settings have not been read yet.</translation>
        </message>
        <message>
            <source>Enter the model {provider} should use.</source>
            <translation>Enter the model {provider} should use.</translation>
        </message>
        <message>
            <source>Enter the SMTP user first: the password is stored under it.</source>
            <translation>Enter the SMTP user first: the password is stored under it.</translation>
        </message>
        <message>
            <source>Saving…</source>
            <translation>Saving…</translation>
        </message>
        <message>
            <source>Nothing was saved: a schedule is not valid.</source>
            <translation>Nothing was saved: a schedule is not valid.</translation>
        </message>
        <message>
            <source>Monday</source>
            <translation>Monday</translation>
        </message>
        <message>
            <source>Tuesday</source>
            <translation>Tuesday</translation>
        </message>
        <message>
            <source>Wednesday</source>
            <translation>Wednesday</translation>
        </message>
        <message>
            <source>Thursday</source>
            <translation>Thursday</translation>
        </message>
        <message>
            <source>Friday</source>
            <translation>Friday</translation>
        </message>
        <message>
            <source>Saturday</source>
            <translation>Saturday</translation>
        </message>
        <message>
            <source>Sunday</source>
            <translation>Sunday</translation>
        </message>
        <message>
            <source>Every day</source>
            <translation>Every day</translation>
        </message>
        <message>
            <source>Every week</source>
            <translation>Every week</translation>
        </message>
        <message>
            <source>Every month</source>
            <translation>Every month</translation>
        </message>
        <message>
            <source>Advanced (cron)</source>
            <translation>Advanced (cron)</translation>
        </message>
        <message>
            <source>day {day}</source>
            <translation>day {day}</translation>
        </message>
        <message>
            <source>at</source>
            <translation>at</translation>
        </message>
        <message>
            <source>Five fields in local time: minute hour day month weekday. Empty means the default time.</source>
            <translation>Five fields in local time: minute hour day month weekday. Empty means the default time.</translation>
        </message>
        <message>
            <source>Times are in this computer's local time. For anything else, choose Advanced and write a cron line.</source>
            <translation>Times are in this computer's local time. For anything else, choose Advanced and write a cron line.</translation>
        </message>
        <message>
            <source>Not a valid cron line. It needs five fields, minute hour day month weekday: 30 2 * * 1 is Mondays at 02:30.</source>
            <translation>Not a valid cron line. It needs five fields, minute hour day month weekday: 30 2 * * 1 is Mondays at 02:30.</translation>
        </message>
        <message>
            <source>Empty: the default time is used.</source>
            <translation>Empty: the default time is used.</translation>
        </message>
        <message>
            <source>This line never runs: no date matches it.</source>
            <translation>This line never runs: no date matches it.</translation>
        </message>
    </context>
    <context>
        <name>StatusWindow</name>
        <message>
            <source>Data folder: {path}</source>
            <translation>Data folder: {path}</translation>
        </message>
    </context>
    <context>
        <name>TrayState</name>
        <message>
            <source>Reading memories…</source>
            <translation>Reading memories…</translation>
        </message>
        <message>
            <source>Promotions waiting: {count}</source>
            <translation>Promotions waiting: {count}</translation>
        </message>
        <message>
            <source>Memories: {count}</source>
            <translation>Memories: {count}</translation>
        </message>
        <message>
            <source>{type}: {count}</source>
            <translation>{type}: {count}</translation>
        </message>
        <message>
            <source>Forgotten: {count}</source>
            <translation>Forgotten: {count}</translation>
        </message>
        <message>
            <source>Captures waiting: {count}</source>
            <translation>Captures waiting: {count}</translation>
        </message>
        <message>
            <source>Capture is paused</source>
            <translation>Capture is paused</translation>
        </message>
        <message>
            <source>Could not read memoryd: {error}</source>
            <translation>Could not read memoryd: {error}</translation>
        </message>
        <message>
            <source>Consolidation: {step}</source>
            <translation>Consolidation: {step}</translation>
        </message>
        <message>
            <source>Processing captures…</source>
            <translation>Processing captures…</translation>
        </message>
        <message>
            <source>Process captures now</source>
            <translation>Process captures now</translation>
        </message>
        <message>
            <source>Consolidating…</source>
            <translation>Consolidating…</translation>
        </message>
        <message>
            <source>Consolidate now</source>
            <translation>Consolidate now</translation>
        </message>
        <message>
            <source>Resume capture</source>
            <translation>Resume capture</translation>
        </message>
        <message>
            <source>Pause capture</source>
            <translation>Pause capture</translation>
        </message>
        <message>
            <source>Review digest...</source>
            <translation>Review digest...</translation>
        </message>
        <message>
            <source>Search memories...</source>
            <translation>Search memories...</translation>
        </message>
        <message>
            <source>Sensitive projects...</source>
            <translation>Sensitive projects...</translation>
        </message>
        <message>
            <source>Identity...</source>
            <translation>Identity...</translation>
        </message>
        <message>
            <source>Settings...</source>
            <translation>Settings...</translation>
        </message>
        <message>
            <source>Open data folder</source>
            <translation>Open data folder</translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>Quit</translation>
        </message>
        <message>
            <source>Syncing with {folder}…</source>
            <translation>Syncing with {folder}…</translation>
        </message>
        <message>
            <source>Sync now (no folder: Settings → Sync)</source>
            <translation>Sync now (no folder: Settings → Sync)</translation>
        </message>
        <message>
            <source>Choose a sync folder in Settings → Sync to share memories across devices.</source>
            <translation>Choose a sync folder in Settings → Sync to share memories across devices.</translation>
        </message>
        <message>
            <source>Sync with {folder}</source>
            <translation>Sync with {folder}</translation>
        </message>
        <message>
            <source>Syncing…</source>
            <translation>Syncing…</translation>
        </message>
        <message>
            <source>Sync now</source>
            <translation>Sync now</translation>
        </message>
    </context>
    <context>
        <name>Projects</name>
        <message>
            <source>Project</source>
            <translation>Project</translation>
        </message>
        <message>
            <source>sensitive project {hash}</source>
            <translation>sensitive project {hash}</translation>
        </message>
        <message>
            <source>d MMM yyyy</source>
            <translation>d MMM yyyy</translation>
        </message>
        <message>
            <source>From the session of {day} in {project}</source>
            <translation>From the session of {day} in {project}</translation>
        </message>
    </context>
    <context>
        <name>TrendsChart</name>
        <message>
            <source>d MMM</source>
            <translation>d MMM</translation>
        </message>
        <message>
            <source>Activity per week</source>
            <translation>Activity per week</translation>
        </message>
        <message>
            <source>No activity yet. Captured sessions, recalls and approved promotions show here week by week.</source>
            <translation>No activity yet. Captured sessions, recalls and approved promotions show here week by week.</translation>
        </message>
        <message>
            <source>No trigger was hit in this period yet.</source>
            <translation>No trigger was hit in this period yet.</translation>
        </message>
        <message>
            <source>Captures</source>
            <translation>Captures</translation>
        </message>
        <message>
            <source>Recalls</source>
            <translation>Recalls</translation>
        </message>
        <message>
            <source>Promotions</source>
            <translation>Promotions</translation>
        </message>
    </context>
    <context>
        <name>Welcome</name>
        <message>
            <source>Welcome</source>
            <translation>Welcome</translation>
        </message>
        <message>
            <source>Welcome to memoryd</source>
            <translation>Welcome to memoryd</translation>
        </message>
        <message>
            <source>memoryd remembers what you work out with your coding agents: each session, and the decisions, preferences and warnings worth keeping. At the start of the next session it gives the agent what matters for that project. Everything stays on this computer, in a folder you can read, and sensitive projects are encrypted.</source>
            <translation>memoryd remembers what you work out with your coding agents: each session, and the decisions, preferences and warnings worth keeping. At the start of the next session it gives the agent what matters for that project. Everything stays on this computer, in a folder you can read, and sensitive projects are encrypted.</translation>
        </message>
        <message>
            <source>Connect your agents</source>
            <translation>Connect your agents</translation>
        </message>
        <message>
            <source>Looking for agents on this computer…</source>
            <translation>Looking for agents on this computer…</translation>
        </message>
        <message>
            <source>Connect the selected agents</source>
            <translation>Connect the selected agents</translation>
        </message>
        <message>
            <source>An API key (optional)</source>
            <translation>An API key (optional)</translation>
        </message>
        <message>
            <source>Save key</source>
            <translation>Save key</translation>
        </message>
        <message>
            <source>Where to find things</source>
            <translation>Where to find things</translation>
        </message>
        <message>
            <source>Skip</source>
            <translation>Skip</translation>
        </message>
        <message>
            <source>Done</source>
            <translation>Done</translation>
        </message>
        <message>
            <source>Connecting…</source>
            <translation>Connecting…</translation>
        </message>
        <message>
            <source>The key is stored in the OS keyring.</source>
            <translation>The key is stored in the OS keyring.</translation>
        </message>
        <message>
            <source>With a key, a language model judges what in a session is worth keeping; without one, memoryd uses its own rules. The key goes into the OS keyring, never into a file.</source>
            <translation>With a key, a language model judges what in a session is worth keeping; without one, memoryd uses its own rules. The key goes into the OS keyring, never into a file.</translation>
        </message>
        <message>
            <source>The weekly review, in the tray menu: once a week, approve or reject what memoryd proposes to keep.</source>
            <translation>The weekly review, in the tray menu: once a week, approve or reject what memoryd proposes to keep.</translation>
        </message>
        <message>
            <source>Found on this computer: memoryd adds its hooks to their settings.</source>
            <translation>Found on this computer: memoryd adds its hooks to their settings.</translation>
        </message>
        <message>
            <source>No agent found on this computer (Claude Code, Codex, OpenClaw). Once one is installed, connect it with: memoryd setup claude-code</source>
            <translation>No agent found on this computer (Claude Code, Codex, OpenClaw). Once one is installed, connect it with: memoryd setup claude-code</translation>
        </message>
        <message>
            <source>The language model chosen in Settings takes no API key.</source>
            <translation>The language model chosen in Settings takes no API key.</translation>
        </message>
        <message>
            <source>Sensitive projects, in the tray menu: a project's memories kept encrypted, and an agent asks you before it reads them.</source>
            <translation>Sensitive projects, in the tray menu: a project's memories kept encrypted, and an agent asks you before it reads them.</translation>
        </message>
        <message>
            <source>{agent}: already connected</source>
            <translation>{agent}: already connected</translation>
        </message>
        <message>
            <source>{provider} API key:</source>
            <translation>{provider} API key:</translation>
        </message>
        <message>
            <source>{agent}: its settings cannot be read: {problem}</source>
            <translation>{agent}: its settings cannot be read: {problem}</translation>
        </message>
        <message>
            <source>{agent} (settings in {folder})</source>
            <translation>{agent} (settings in {folder})</translation>
        </message>
        <message>
            <source>{agent}: not connected: {error}</source>
            <translation>{agent}: not connected: {error}</translation>
        </message>
        <message>
            <source>Restart it to start using memoryd.</source>
            <translation>Restart it to start using memoryd.</translation>
        </message>
        <message>
            <source>{agent}: connected ({count} settings files changed; backups kept).</source>
            <translation>{agent}: connected ({count} settings files changed; backups kept).</translation>
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
            <translation>{old}, replaced by {new}</translation>
        </message>
        <message>
            <source>Preferences added</source>
            <translation>Preferences added</translation>
        </message>
        <message>
            <source>Preferences dropped</source>
            <translation>Preferences dropped</translation>
        </message>
        <message>
            <source>Decisions superseded</source>
            <translation>Decisions superseded</translation>
        </message>
        <message>
            <source>Also superseded</source>
            <translation>Also superseded</translation>
        </message>
        <message>
            <source>{kind}: {change}</source>
            <translation>{kind}: {change}</translation>
        </message>
        <message>
            <source>Decisions added</source>
            <translation>Decisions added</translation>
        </message>
        <message>
            <source>Warnings added</source>
            <translation>Warnings added</translation>
        </message>
        <message>
            <source>Facts added</source>
            <translation>Facts added</translation>
        </message>
        <message>
            <source>Playbooks added</source>
            <translation>Playbooks added</translation>
        </message>
        <message>
            <source>New in your memories</source>
            <translation>New in your memories</translation>
        </message>
        <message>
            <source>No longer mentioned</source>
            <translation>No longer mentioned</translation>
        </message>
        <message>
            <source>{count} new version(s) of your profile this month.</source>
            <translation>{count} new version(s) of your profile this month.</translation>
        </message>
        <message>
            <source>Your profile did not change this month.</source>
            <translation>Your profile did not change this month.</translation>
        </message>
        <message>
            <source>Nothing changed in your memories this month.</source>
            <translation>Nothing changed in your memories this month.</translation>
        </message>
        <message>
            <source>, </source>
            <translation>, </translation>
        </message>
        <message>
            <source>{versions} version(s) and {reports} monthly report(s) draw on sensitive projects ({projects}) and are hidden. Grant access to those projects to see them.</source>
            <translation>{versions} version(s) and {reports} monthly report(s) draw on sensitive projects ({projects}) and are hidden. Grant access to those projects to see them.</translation>
        </message>
        <message>
            <source>{versions} version(s) draw on sensitive projects ({projects}) and are hidden. Grant access to those projects to see them.</source>
            <translation>{versions} version(s) draw on sensitive projects ({projects}) and are hidden. Grant access to those projects to see them.</translation>
        </message>
        <message>
            <source>{reports} monthly report(s) draw on sensitive projects ({projects}) and are hidden. Grant access to those projects to see them.</source>
            <translation>{reports} monthly report(s) draw on sensitive projects ({projects}) and are hidden. Grant access to those projects to see them.</translation>
        </message>
        <message>
            <source>shown under a grant on a sensitive project</source>
            <translation>shown under a grant on a sensitive project</translation>
        </message>
        <message>
            <source>Show the report file and its diff</source>
            <translation>Show the report file and its diff</translation>
        </message>
        <message>
            <source>Hide the report file</source>
            <translation>Hide the report file</translation>
        </message>
        <message>
            <source>({note})</source>
            <translation>({note})</translation>
        </message>
        <message>
            <source>Reading the month's changes…</source>
            <translation>Reading the month's changes…</translation>
        </message>
    </context>
    <context>
        <name>DuraReasoning</name>
        <message>
            <source>identity, health or safety</source>
            <translation>identity, health or safety</translation>
        </message>
        <message>
            <source>temporary</source>
            <translation>temporary</translation>
        </message>
        <message>
            <source>nothing stated to keep</source>
            <translation>nothing stated to keep</translation>
        </message>
        <message>
            <source>decision</source>
            <translation>decision</translation>
        </message>
        <message>
            <source>preference</source>
            <translation>preference</translation>
        </message>
        <message>
            <source>warning</source>
            <translation>warning</translation>
        </message>
        <message>
            <source>playbook</source>
            <translation>playbook</translation>
        </message>
        <message>
            <source>fact</source>
            <translation>fact</translation>
        </message>
        <message>
            <source>sensitive project: nothing sent to the LLM</source>
            <translation>sensitive project: nothing sent to the LLM</translation>
        </message>
        <message>
            <source>suspect memory: nothing sent to the LLM</source>
            <translation>suspect memory: nothing sent to the LLM</translation>
        </message>
        <message>
            <source>today's LLM token budget is spent</source>
            <translation>today's LLM token budget is spent</translation>
        </message>
        <message>
            <source>the LLM failed</source>
            <translation>the LLM failed</translation>
        </message>
        <message>
            <source>no API key for the LLM</source>
            <translation>no API key for the LLM</translation>
        </message>
        <message>
            <source>the settings choose the rules</source>
            <translation>the settings choose the rules</translation>
        </message>
        <message>
            <source>the LLM was not used</source>
            <translation>the LLM was not used</translation>
        </message>
        <message>
            <source>said as “{words}”</source>
            <translation>said as “{words}”</translation>
        </message>
        <message>
            <source>asked to remember</source>
            <translation>asked to remember</translation>
        </message>
        <message>
            <source>asked to remember to do it</source>
            <translation>asked to remember to do it</translation>
        </message>
        <message>
            <source>steps</source>
            <translation>steps</translation>
        </message>
        <message>
            <source>marked important</source>
            <translation>marked important</translation>
        </message>
        <message>
            <source>said in passing</source>
            <translation>said in passing</translation>
        </message>
        <message>
            <source>{type} ({cue})</source>
            <translation>{type} ({cue})</translation>
        </message>
        <message>
            <source>repeated “{words}” +0.2</source>
            <translation>repeated “{words}” +0.2</translation>
        </message>
        <message>
            <source>Scored by the rules ({reason})</source>
            <translation>Scored by the rules ({reason})</translation>
        </message>
        <message>
            <source>Scored by the rules</source>
            <translation>Scored by the rules</translation>
        </message>
        <message>
            <source>{head}: importance {importance} = {parts}</source>
            <translation>{head}: importance {importance} = {parts}</translation>
        </message>
        <message>
            <source>; </source>
            <translation>; </translation>
        </message>
    </context>
    <context>
        <name>Consolidation</name>
        <message>
            <source>{n} captures processed</source>
            <translation>{n} captures processed</translation>
        </message>
        <message>
            <source>{n} sessions analysed</source>
            <translation>{n} sessions analysed</translation>
        </message>
        <message>
            <source>{n} proposals for review</source>
            <translation>{n} proposals for review</translation>
        </message>
        <message>
            <source>{n} duplicate proposals dropped</source>
            <translation>{n} duplicate proposals dropped</translation>
        </message>
        <message>
            <source>{n} memories faded</source>
            <translation>{n} memories faded</translation>
        </message>
        <message>
            <source>identity profile v{n}</source>
            <translation>identity profile v{n}</translation>
        </message>
        <message>
            <source>{n} snapshots refreshed</source>
            <translation>{n} snapshots refreshed</translation>
        </message>
        <message>
            <source>{n} files exported</source>
            <translation>{n} files exported</translation>
        </message>
        <message>
            <source>{n} LLM tokens</source>
            <translation>{n} LLM tokens</translation>
        </message>
        <message>
            <source>, </source>
            <translation>, </translation>
        </message>
        <message>
            <source>capture</source>
            <translation>capture</translation>
        </message>
        <message>
            <source>analysis</source>
            <translation>analysis</translation>
        </message>
        <message>
            <source>duplicates</source>
            <translation>duplicates</translation>
        </message>
        <message>
            <source>decay</source>
            <translation>decay</translation>
        </message>
        <message>
            <source>identity profile</source>
            <translation>identity profile</translation>
        </message>
        <message>
            <source>snapshots</source>
            <translation>snapshots</translation>
        </message>
        <message>
            <source>exports</source>
            <translation>exports</translation>
        </message>
        <message>
            <source>{phase}…</source>
            <translation>{phase}…</translation>
        </message>
        <message>
            <source>resuming the interrupted run</source>
            <translation>resuming the interrupted run</translation>
        </message>
        <message>
            <source>{phase} failed</source>
            <translation>{phase} failed</translation>
        </message>
        <message>
            <source>{phase}: done before the interruption</source>
            <translation>{phase}: done before the interruption</translation>
        </message>
        <message>
            <source>nothing new</source>
            <translation>nothing new</translation>
        </message>
        <message>
            <source>{seconds} s</source>
            <translation>{seconds} s</translation>
        </message>
        <message>
            <source>{phase}: nothing to do ({seconds})</source>
            <translation>{phase}: nothing to do ({seconds})</translation>
        </message>
        <message>
            <source>{phase}: {done} ({seconds})</source>
            <translation>{phase}: {done} ({seconds})</translation>
        </message>
    </context>
    <context>
        <name>Errors</name>
        <message>
            <source>This is in a sensitive project: grant access to read it.</source>
            <translation>This is in a sensitive project: grant access to read it.</translation>
        </message>
        <message>
            <source>“{project}” is a sensitive project: grant access to read it.</source>
            <translation>“{project}” is a sensitive project: grant access to read it.</translation>
        </message>
    </context>
</TS>

"""The memory browser's write side: record, edit, forget and merge through dialogs, and
the long jobs (reindex, import, mark a folder sensitive) with the progress panel.

A mixin of `BrowserWindow`, kept in its own module so the window reads as the read side
(filters, listing, detail). Every change ends in `_changed`: the listing is fetched again
with the outcome in the status line, and `changed` tells the tray its counts are stale.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Slot
from PySide6.QtWidgets import QDialog, QMessageBox

from memoryd.app import Changes, Memoryd, MemoryView
from memoryd.visible import clean
from memoryd_desktop.browser_model import ACTOR
from memoryd_desktop.long_task import LongTask, Progress, ProgressPanel
from memoryd_desktop.memory_dialogs import (
    ImportDialog,
    MarkSensitiveDialog,
    MemoryDialog,
    MemoryDraft,
    MergeDialog,
)
from memoryd_desktop.ops import Ops
from memoryd_desktop.texts import describe

translate = QCoreApplication.translate  # the bare name lupdate recognises


class MemoryEdits:
    """Mixed into `BrowserWindow` (before QMainWindow), which provides what is declared here."""

    facade: Memoryd
    ops: Ops
    dialog: QDialog | None
    view: MemoryView | None
    task: LongTask | None
    progress_panel: ProgressPanel
    changed: Any  # SignalInstance(Changes)
    task_started: Any  # SignalInstance(LongTask)
    _select_after: str | None
    _outcome: tuple[str, bool] | None
    _loaded: bool
    refresh: Callable[[], None]
    show_status: Callable[..., None]
    selected_rows: Callable[[], list[dict[str, Any]]]
    _failed: Callable[[BaseException], None]
    _update_actions: Callable[[], None]
    _clear_detail: Callable[[], None]

    # -- record / edit ----------------------------------------------------------------
    def _open(self, dialog: QDialog, on_accept: Callable[[], None] | None = None) -> None:
        """Show `dialog` window-modal without a nested event loop; one dialog at a time."""
        if self.dialog is not None:
            self.dialog.close()
        self.dialog = dialog
        if on_accept is not None:
            dialog.accepted.connect(on_accept)
        dialog.finished.connect(lambda _r: self._dialog_closed(dialog))
        dialog.open()

    def _dialog_closed(self, dialog: QDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()

    @Slot()
    def open_record(self) -> MemoryDialog:
        dialog = MemoryDialog(self)
        self._open(dialog, lambda: self.record(dialog.draft()))
        return dialog

    def record(self, draft: MemoryDraft) -> None:
        facade = self.facade

        def work() -> tuple[Any, Changes]:
            return facade.record(
                draft.memory_type,
                draft.title,
                draft.body,
                triggers=draft.triggers,
                tags=draft.tags,
                scope_path=draft.folder or None,
                actor=ACTOR,
            )

        def done(result: tuple[Any, Changes]) -> None:
            doc, changes = result
            self._select_after = doc.meta.slug
            text = (
                translate("BrowserWindow", "Already recorded: {title}")
                if changes.existing  # the same type, title and body: that memory, not a copy
                else translate("BrowserWindow", "Recorded: {title}")
            )
            self._changed(changes, text.format(title=clean(doc.meta.title, one_line=True)))

        self.ops.run(work, done, self._failed)

    @Slot()
    def open_edit(self) -> MemoryDialog | None:
        view = self.view
        if view is None:
            return None
        meta = view.doc.meta
        existing = MemoryDraft(
            meta.type.value, meta.title, view.doc.body, list(meta.triggers), list(meta.tags)
        )
        dialog = MemoryDialog(self, existing=existing)
        self._open(dialog, lambda: self.edit(meta.slug, dialog.edits()))
        return dialog

    def edit(self, slug: str, fields: Mapping[str, Any]) -> None:
        """Save the fields the user changed (title, body, triggers, tags), and only those."""
        if not fields:
            self.show_status(translate("BrowserWindow", "Nothing changed."))
            return
        facade, values = self.facade, dict(fields)

        def work() -> tuple[Any, Changes]:
            return facade.update(slug, actor=ACTOR, **values)

        def done(result: tuple[Any, Changes]) -> None:
            _doc, changes = result
            if changes == Changes():
                self.show_status(translate("BrowserWindow", "Nothing changed."))
                return
            self._select_after = slug
            self.view = None  # reload the detail pane
            self._changed(changes, translate("BrowserWindow", "Saved."))

        self.ops.run(work, done, self._failed)

    def _changed(self, changes: Changes, text: str, error: bool = False) -> None:
        """Reload rows and scopes, keep `text` in the status line, tell the tray (an empty
        Changes, after a long task, means "anything may have changed")."""
        self._outcome = (text, error)
        self._loaded = False  # the scope list may have changed too
        self.refresh()
        self.changed.emit(changes)

    # -- forget / merge ---------------------------------------------------------------
    @Slot()
    def ask_forget(self) -> QMessageBox | None:
        rows = self.selected_rows()
        if len(rows) != 1:
            return None
        row = rows[0]
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(translate("BrowserWindow", "Forget memory"))
        box.setTextFormat(Qt.TextFormat.PlainText)  # the title is the memory's: never markup
        box.setText(
            translate("BrowserWindow", "Forget “{title}”? Agents will no longer recall it.").format(
                title=clean(str(row.get("title", "")), one_line=True)
            )
        )
        confirm = box.addButton(translate("BrowserWindow", "Forget"), QMessageBox.ButtonRole.DestructiveRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)  # Del then Enter must not forget: forgetting is a click
        box.setEscapeButton(cancel)
        slug = str(row["slug"])
        box.buttonClicked.connect(lambda button: self.forget(slug) if button is confirm else None)
        self._open(box)
        return box

    def forget(self, slug: str) -> None:
        facade = self.facade

        def done(changes: Changes) -> None:
            self._clear_detail()
            self._changed(changes, translate("BrowserWindow", "Forgotten."))

        self.ops.run(lambda: facade.forget(slug, actor=ACTOR), done, self._failed)

    @Slot()
    def open_merge(self) -> MergeDialog | None:
        rows = self.selected_rows()
        if len(rows) < 2:
            return None
        dialog = MergeDialog(rows, self)
        self._open(
            dialog,
            lambda: self.merge(dialog.keep(), dialog.drop(), force=dialog.across_scopes.isChecked()),
        )
        return dialog

    def merge(self, keep: str, drop: Sequence[str], *, force: bool = False) -> None:
        facade, drop = self.facade, list(drop)

        def done(result: tuple[Any, Changes]) -> None:
            res, changes = result
            self._select_after = keep
            self.view = None
            text = translate("BrowserWindow", "Merged {count} into {title}.")
            title = clean(res.kept.meta.title, one_line=True)
            self._changed(changes, text.format(count=len(res.dropped), title=title))

        self.ops.run(lambda: facade.merge(keep, drop, force=force, actor=ACTOR), done, self._failed)

    # -- long tasks -------------------------------------------------------------------
    def start_task(
        self,
        work: Callable[[Progress], Any],
        text: str,
        on_done: Callable[[Any], str],
        cancelled_text: str,
    ) -> LongTask:
        """Run `work` as a LongTask with the progress panel; `on_done` says how it went."""
        task = LongTask(self.ops, work, parent=self)
        self.task = task
        self.progress_panel.attach(task, text)
        task.finished.connect(lambda result: self._task_ended(task, on_done(result)))
        task.failed.connect(lambda exc: self._task_failed(task, exc))
        task.cancelled.connect(lambda: self._task_ended(task, cancelled_text))
        self._update_actions()
        self.show_status(text)
        self.task_started.emit(task)
        task.start()
        return task

    def _task_ended(self, task: LongTask, text: str, error: bool = False) -> None:
        """Any end: even a cancelled import or marking changed memories, so reload all."""
        if self.task is task:
            self.task = None
        self._update_actions()
        self._changed(Changes(), text, error)

    def _task_failed(self, task: LongTask, exc: BaseException) -> None:
        self._failed(exc)
        self._task_ended(task, describe(exc), error=True)

    @Slot()
    def reindex(self) -> LongTask:
        facade = self.facade

        def done(report: Any) -> str:
            text = translate("BrowserWindow", "Reindexed {indexed} of {files} files; skipped {skipped}.")
            return text.format(indexed=report.indexed, files=report.files, skipped=len(report.skipped))

        return self.start_task(
            lambda progress: facade.reindex(progress=progress, actor=ACTOR),
            translate("BrowserWindow", "Reindexing…"),
            done,
            translate("BrowserWindow", "Reindex cancelled: the index is as it was."),
        )

    @Slot()
    def open_import(self) -> ImportDialog:
        dialog = ImportDialog(self)
        self._open(dialog, lambda: self.import_from(**vars(dialog.request())))
        return dialog

    def import_from(self, kind: str, folder: str | None, scope: str | None = None) -> LongTask:
        facade = self.facade

        def done(report: Any) -> str:
            text = translate(
                "BrowserWindow", "Imported {imported}, updated {updated}, unchanged {unchanged}."
            ).format(imported=report.imported, updated=report.updated, unchanged=report.unchanged)
            if report.skipped or report.malformed:
                text += " " + translate("BrowserWindow", "Skipped: {count}.").format(
                    count=len(report.skipped) + report.malformed
                )
            return text

        def work(progress: Progress) -> Any:
            return facade.import_from(kind, folder, scope_path=scope, progress=progress, actor=ACTOR)

        return self.start_task(
            work,
            translate("BrowserWindow", "Importing…"),
            done,
            translate("BrowserWindow", "Import cancelled: what was imported stays; import again to go on."),
        )

    @Slot()
    def open_mark_sensitive(self) -> MarkSensitiveDialog:
        dialog = MarkSensitiveDialog(self)
        self._open(dialog, lambda: self.mark_sensitive(dialog.folder.text(), dialog.chosen_passphrase()))
        return dialog

    def mark_sensitive(self, folder: str, passphrase: str | None = None) -> LongTask:
        facade = self.facade

        def done(report: Any) -> str:
            text = translate("BrowserWindow", "{root} is sensitive now: {count} memories encrypted.").format(
                root=report.root, count=report.encrypted
            )
            return " ".join([text, *report.warnings])

        def work(progress: Progress) -> Any:
            return facade.mark_sensitive(folder, passphrase=passphrase, progress=progress, actor=ACTOR)

        return self.start_task(
            work,
            translate("BrowserWindow", "Encrypting {root}…").format(root=folder),
            done,
            translate(
                "BrowserWindow", "Stopped: the project is marked sensitive; run it again to encrypt the rest."
            ),
        )

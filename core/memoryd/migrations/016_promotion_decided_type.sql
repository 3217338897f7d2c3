-- The type an approval wrote the memory with (issue 21): the user may change the proposed
-- one at `promote --type` or in the review, and the listings show what was decided. NULL
-- while pending, for rejections, and for approvals made before this migration (those are
-- shown with their proposed type, as they were).
ALTER TABLE promotions ADD COLUMN decided_type TEXT;

-- Which scopes an identity version or a monthly report drew on (a JSON array of scope
-- hashes), so marking a scope sensitive can withdraw every version that holds its content.
ALTER TABLE profile_versions ADD COLUMN source_scopes TEXT;
ALTER TABLE profile_change_reports ADD COLUMN source_scopes TEXT;

-- When an account's profile (username, first and last name, email) last changed, epoch seconds:
-- the OpenID `updated_at` claim. Every write that changes one of those fields sets it. The accounts
-- of an older database get this migration's time, the first moment their profile is known to hold;
-- 0 (the column's default) marks a row an older release inserts later: unknown.
alter table users add column updated_at integer not null default 0;

update users set updated_at = unixepoch();

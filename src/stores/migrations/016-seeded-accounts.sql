-- The accounts of the initial data (`app.initial-data`) this database has seeded, by username: a row
-- is written in the transaction that creates the account, or, for an account the database already
-- has (created before this table existed, or through administration), at the first start that finds
-- it. A row outlives its account: a seeded account that was deleted is not created again. Nothing
-- can tell which accounts of the file were deleted before this table existed: those are created once
-- more, at the first start after it, and recorded then. Roles are not recorded: no operation of the
-- service deletes a role, and a role grants nothing without an account that holds it.
create table seeded_accounts (
  username  text primary key,
  seeded_at integer not null -- epoch seconds
) without rowid;

-- Bounds per account and per login: live logins are counted per user, and access tokens revoked
-- one by one are counted per login (login_id: the token's `sid`, when it has one).
create index refresh_tokens_user on refresh_tokens (username);
-- A login's first refresh token is generation 0, each rotation's the next: the spent ones kept for
-- reuse detection are the newest generations.
alter table refresh_tokens add column generation integer not null default 0;
alter table revocations add column login_id text;
create index revocations_login on revocations (login_id) where login_id is not null;

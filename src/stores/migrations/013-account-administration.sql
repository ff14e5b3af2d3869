-- Accounts administered while the service runs: an account can be disabled (it cannot log in and
-- every token of it is refused), and a revocation can name an account (kind 'account', id: the
-- username): every access token of the account issued before `issued_before` (an earlier `iat`, epoch seconds)
-- is refused until `expires_at`. The check on `kind` cannot be altered in place: the table is
-- copied into one that allows the new kind, keeping every seq so that readers' cursors hold.
alter table users add column enabled integer not null default 1 check (enabled in (0, 1));

create table revocations_next (
  seq           integer primary key autoincrement,
  kind          text not null check (kind in ('token', 'login', 'account')),
  id            text not null,
  expires_at    integer not null, -- epoch seconds
  login_id      text,
  issued_before integer,          -- kind 'account': epoch seconds
  unique (kind, id)
);

insert into revocations_next (seq, kind, id, expires_at, login_id)
  select seq, kind, id, expires_at, login_id from revocations;
drop table revocations;
alter table revocations_next rename to revocations;
create index revocations_expiry on revocations (expires_at);
create index revocations_login on revocations (login_id) where login_id is not null;

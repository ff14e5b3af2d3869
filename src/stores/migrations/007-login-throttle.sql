-- The login throttle's counters, shared by every process on this file: one row per counted key
-- (rate-limiter-flexible's RateLimiterSQLite schema; `expire` in epoch milliseconds), and the
-- (username digest, address) pairs that logged in successfully, newest seen_at last.
create table login_throttle (
  key    text primary key,
  points integer not null default 0,
  expire integer
);

create index login_throttle_expire on login_throttle (expire);

create table login_known_pairs (
  pair    text primary key,
  seen_at integer not null -- epoch milliseconds
) without rowid;

create index login_known_pairs_seen on login_known_pairs (seen_at);

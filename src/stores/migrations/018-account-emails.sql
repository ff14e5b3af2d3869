-- An account's email: optional (null when the account has none), stored as given (trimmed), unique
-- compared case-insensitively. The service accepts ASCII addresses only, so lower() folds every case;
-- nulls are distinct in a unique index, so accounts without an email are not limited.
alter table users add column email text;

create unique index users_email on users (lower(email));

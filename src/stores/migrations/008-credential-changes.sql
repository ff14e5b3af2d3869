-- A counter that moves with every change to users, roles or their links, made by any process
-- (triggers run inside the writer's own transaction): a process that keeps the listing of users
-- between requests compares it with this counter, a primary-key read, before serving the listing.
create table change_counters (
  name text primary key,
  n    integer not null
) without rowid;

insert into change_counters (name, n) values ('credentials', 0);

create trigger users_changed_insert after insert on users begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger users_changed_update after update on users begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger users_changed_delete after delete on users begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger roles_changed_insert after insert on roles begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger roles_changed_update after update on roles begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger roles_changed_delete after delete on roles begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger user_roles_changed_insert after insert on user_roles begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger user_roles_changed_update after update on user_roles begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger user_roles_changed_delete after delete on user_roles begin update change_counters set n = n + 1 where name = 'credentials'; end;

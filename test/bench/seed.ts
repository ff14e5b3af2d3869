/**
 * Seeds records straight into the SQLite database, before the server starts: one transaction of
 * prepared inserts through the same migrations, ids and name keys the stores use (≈300k rows/s),
 * where going through HTTP would take minutes and measure the seeding rather than the server.
 */
import { newId } from '../../src/ids.ts';
import { nameKeyOf } from '../../src/stores/employee-store.ts';
import { openDatabase } from '../../src/stores/sqlite.ts';

const FIRST = [
  'Ada',
  'Alan',
  'Grace',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'John',
  'Margaret',
  'Ken',
  'Radia',
  'Dennis',
  'Sophie',
  'Tim',
  'Hedy',
  'Linus',
  'Annie',
  'Claude',
  'Katherine',
  'Niklaus',
];
const LAST = [
  'Lovelace',
  'Turing',
  'Hopper',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Backus',
  'Hamilton',
  'Thompson',
  'Perlman',
  'Ritchie',
  'Wilson',
  'Berners-Lee',
  'Lamarr',
  'Torvalds',
  'Easley',
  'Shannon',
  'Johnson',
  'Wirth',
  'Smith',
  'Roe',
  'Nakamura',
  'Okafor',
  'Silva',
];

const at = new Date(Date.UTC(2025, 0, 1)).toISOString();

/** `count` employees with names from 20 × 25 first and last names and birth dates 1950–1999. */
export function seedEmployees(dataDir: string, count: number): void {
  const db = openDatabase(dataDir, { synchronous: 'NORMAL' });
  const insert = db.prepare<[string, string, string, string, string, string]>(
    'insert into employees (id, name, name_key, date_of_birth, created_at, updated_at, version) values (?, ?, ?, ?, ?, ?, 1)',
  );
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const name = `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}`;
      const born = new Date(Date.UTC(1950 + (i % 50), i % 12, 1 + (i % 28))).toISOString().slice(0, 10);
      insert.run(newId(), name, nameKeyOf(name), born, at, at);
    }
  })();
  db.close();
}

/** `count` users of the user-data service; returns their ids. */
export function seedUsers(dataDir: string, count: number): string[] {
  const db = openDatabase(dataDir, { synchronous: 'NORMAL' });
  const insert = db.prepare<[string, string, string, string, string]>(
    'insert into user_data (id, name, email, created_at, updated_at, version) values (?, ?, ?, ?, ?, 1)',
  );
  const ids: string[] = [];
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const id = newId();
      insert.run(id, `Bench User ${i}`, `user${i}@bench.example`, at, at);
      ids.push(id);
    }
  })();
  db.close();
  return ids;
}

/**
 * `count` enabled accounts `bench.user<i>` with the role USER (ADMIN and USER created as
 * data/initial-data.json describes them when missing, as its loading would), all with one cost-4
 * BCrypt `hash`; returns their ids.
 */
export function seedAccounts(dataDir: string, count: number, hash: string): number[] {
  const db = openDatabase(dataDir, { synchronous: 'NORMAL' });
  const insertRole = db.prepare<[string, string]>(
    'insert into roles (role_name, description) values (?, ?) on conflict (role_name) do nothing',
  );
  const roleId = db.prepare<[string], number>('select id from roles where role_name = ?').pluck();
  const insertUser = db
    .prepare<[string, string, string, string], number>(
      'insert into users (username, password, first_name, last_name, enabled) values (?, ?, ?, ?, 1) returning id',
    )
    .pluck();
  const link = db.prepare<[number, number]>('insert into user_roles (user_id, role_id) values (?, ?)');
  const ids: number[] = [];
  db.transaction(() => {
    insertRole.run('ADMIN', 'Administrator: manages the service');
    insertRole.run('USER', 'User: reads and writes its own data');
    const user = roleId.get('USER');
    if (user === undefined) throw new Error('no USER role');
    for (let i = 0; i < count; i++) {
      const id = insertUser.get(`bench.user${i}`, hash, FIRST[i % FIRST.length] ?? '', LAST[i % LAST.length] ?? '');
      if (id === undefined) throw new Error('account insert returned no id');
      link.run(id, user);
      ids.push(id);
    }
  })();
  db.close();
  return ids;
}

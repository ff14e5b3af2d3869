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

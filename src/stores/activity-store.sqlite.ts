import Database from 'better-sqlite3';
import type { ObjectIdString } from '../ids.ts';
import type { ActivityDetail, ActivityRecord, ActivityStore } from './activity-store.ts';
import type { Db } from './sqlite.ts';

interface Row {
  seq: number;
  id: string;
  user_id: string;
  type: string;
  detail: string;
  at: string;
}

const toActivity = (r: Row): ActivityRecord => ({
  seq: r.seq,
  id: r.id as ObjectIdString,
  userId: r.user_id as ObjectIdString,
  type: r.type,
  detail: JSON.parse(r.detail) as ActivityDetail,
  at: r.at,
});

/** SQLite adapter of {@link ActivityStore}: rows reference `user_data`, so an unknown user is refused. */
export function sqliteActivityStore(db: Db): ActivityStore {
  const insert = db.prepare<[string, string, string, string, string], Row>(
    'insert into user_activity (id, user_id, type, detail, at) values (?, ?, ?, ?, ?) returning *',
  );
  const newest = db.prepare<[string, number], Row>(
    'select * from user_activity where user_id = ? order by seq desc limit ?',
  );
  const latest = db
    .prepare<[string], number>('select seq from user_activity where user_id = ? order by seq desc limit 1')
    .pluck();
  const older = db.prepare<[string, number, number], Row>(
    'select * from user_activity where user_id = ? and seq < ? order by seq desc limit ?',
  );

  return {
    async append(a) {
      try {
        const row = insert.get(a.id, a.userId, a.type, JSON.stringify(a.detail), a.at);
        if (!row) throw new Error('activity insert returned no row');
        return toActivity(row);
      } catch (error) {
        if (error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return undefined;
        throw error;
      }
    },
    latestSeq: async (userId) => latest.get(userId),
    async page(userId, { limit, beforeSeq }) {
      const rows = beforeSeq === undefined ? newest.all(userId, limit + 1) : older.all(userId, beforeSeq, limit + 1);
      // One write numbers and inserts an append, and writes commit one at a time: never a gap.
      return { items: rows.slice(0, limit).map(toActivity), hasMore: rows.length > limit, settled: true };
    },
  };
}

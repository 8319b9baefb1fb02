/**
 * A checked-out connection whose server side ends (PostgreSQL restarting, a backend terminated) must not end the
 * process: found by bench/chaos (issue 47), where a PostgreSQL restart killed send-worker and campaign-dispatcher
 * with an unhandled 'error' event. Real PostgreSQL: the backend is ended with pg_terminate_backend.
 */
import { connectSession, createDb } from "../src";

const db = createDb(process.env.DATABASE_URL!, { max: 3 });
afterAll(() => db.close());

it("a held connection ended by the server: no crash, its next query fails, the pool serves again", async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on("uncaughtException", onUncaught);
  try {
    const session = await connectSession(db);
    const { rows } = await session.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    await db.pool.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
    // the client learns of it from its socket, while it is idle and checked out
    await new Promise((r) => setTimeout(r, 300));
    await expect(session.query("SELECT 1")).rejects.toThrow();
    session.release(true);
    expect(uncaught).toEqual([]);
    const after = await db.pool.query<{ one: number }>("SELECT 1 AS one");
    expect(after.rows[0]!.one).toBe(1);
  } finally {
    process.off("uncaughtException", onUncaught);
  }
});

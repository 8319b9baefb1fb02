import { createLimiter } from "./limiter";

test("never more than max holders, waiters served in order", async () => {
  const limiter = createLimiter(2);
  let active = 0;
  let peak = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: 6 }, async (_, i) => {
      const release = await limiter.acquire();
      active++;
      peak = Math.max(peak, active);
      order.push(i);
      await new Promise((r) => setTimeout(r, 5));
      active--;
      release();
      release(); // double release is harmless
    }),
  );
  expect(peak).toBe(2);
  expect(order).toEqual([0, 1, 2, 3, 4, 5]);
});

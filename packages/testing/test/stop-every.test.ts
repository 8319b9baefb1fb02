import { stopEvery } from "../src";

test("every step runs though one before it fails and one hangs, and the failures are thrown together", async () => {
  const ran: string[] = [];
  const started = Date.now();
  const stopping = stopEvery(
    [
      () => {
        ran.push("fails");
        throw new Error("broken");
      },
      () => {
        ran.push("hangs");
        return new Promise(() => undefined);
      },
      async () => {
        ran.push("last");
      },
    ],
    200,
  );
  await expect(stopping).rejects.toMatchObject({
    errors: [
      expect.objectContaining({ message: "broken" }),
      expect.objectContaining({ message: expect.stringMatching(/over 200 ms/) }),
    ],
  });
  expect(ran).toEqual(["fails", "hangs", "last"]);
  expect(Date.now() - started).toBeLessThan(5000);
});

test("resolves when every step does", async () => {
  await expect(stopEvery([() => undefined, async () => undefined])).resolves.toBeUndefined();
});

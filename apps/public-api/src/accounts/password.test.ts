import { hashPassword, passwordProblem, UNKNOWN_USER_HASH, verifyPassword } from "./password";

test("a hash verifies its password only, salted (two hashes of one password differ)", async () => {
  const a = await hashPassword("correct horse battery");
  const b = await hashPassword("correct horse battery");
  expect(a).toMatch(/^scrypt\$32768\$8\$1\$/);
  expect(a).not.toBe(b);
  expect(await verifyPassword("correct horse battery", a)).toBe(true);
  expect(await verifyPassword("correct horse batterY", a)).toBe(false);
  expect(await verifyPassword("anything", UNKNOWN_USER_HASH)).toBe(false);
  expect(await verifyPassword("x", "not a hash")).toBe(false);
});

test("passwords of 12 to 200 characters", () => {
  expect(passwordProblem("short")).toBe("password must be at least 12 characters");
  expect(passwordProblem("a".repeat(12))).toBeNull();
  expect(passwordProblem("a".repeat(201))).toBe("password must be at most 200 characters");
});

import { replyText } from "./reply-text";
test("strips a Gmail quote", () => {
  expect(replyText("Thanks!\n\nOn Mon, Jan 1, 2024 at 10:00 AM Bob <b@x.com> wrote:\n> old\n")).toBe(
    "Thanks!",
  );
});

import { distinctLists, uniqueAddresses } from "./recipients";

test("A@x.org and a@x.org are one person: the first spelling is kept, with its case", () => {
  expect(uniqueAddresses(["A@x.org", "b@x.org", "a@x.org", "a@X.ORG"])).toEqual(["A@x.org", "b@x.org"]);
});

test("across to, cc and bcc each person is counted once, in the most visible list, as first written", () => {
  expect(
    distinctLists({
      to: ["A@x.org", "Bo@x.org"],
      cc: ["a@x.org", "Carl@x.org", "carl@X.org"],
      bcc: ["bo@x.org", "CARL@x.org", "Dee@x.org"],
    }),
  ).toEqual({ to: ["A@x.org", "Bo@x.org"], cc: ["Carl@x.org"], bcc: ["Dee@x.org"] });
});

// Runs before each test file (setupFilesAfterEnv). A package's files run one after another on its own database and
// RabbitMQ vhost, so a service an earlier file left running (its beforeAll failed half-way, or its afterAll timed
// out) would consume this file's queues with the earlier file's configuration: its send-worker sent this file's
// sends to a simulator that was gone, and every later file of the package failed waiting for them (CI, stop 33).
// Such a service is SIGKILLed here, before this file starts its own.
const { killLeftChildren } = require("./left-children");

beforeAll(() => {
  killLeftChildren("an earlier test file");
});

// Runs before each test file is loaded (setupFilesAfterEnv). A package's files run one after another on its own
// database and RabbitMQ vhost, so a service an earlier file left running (its beforeAll failed half-way, or its
// afterAll timed out) would consume this file's queues with the earlier file's configuration: its send-worker sent
// this file's sends to a simulator that was gone, and every later file of the package failed waiting for them (CI,
// stop 33). Such a service is SIGKILLed here, at once: not in a beforeAll, which would run after this file's own
// top-level code and could kill what that code started.
const { killLeftChildren } = require("./left-children");

killLeftChildren("an earlier test file");

// Lint-only tests: no database or broker, so the preset's per-package infrastructure set-up is skipped.
module.exports = { ...require("@emailsvc/testing/jest-preset"), globalSetup: undefined };

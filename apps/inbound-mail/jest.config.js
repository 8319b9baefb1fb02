const preset = require("@emailsvc/testing/jest-preset");
// email-reply-parser ships ES modules only: jest (CommonJS) transforms it like our own sources.
module.exports = { ...preset, transformIgnorePatterns: ["/node_modules/(?!.*email-reply-parser)"] };

// The workspace preset (swc, the "development" condition, this package's own database and vhost for the
// integration test). The sources are ESM with `.js` specifiers (what Node needs for the published build); jest
// runs them as CommonJS, so the specifiers are mapped back to the TypeScript files.
const preset = require("@emailsvc/testing/jest-preset");

module.exports = {
  ...preset,
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
};

module.exports = require("@emailsvc/testing/jest-preset");

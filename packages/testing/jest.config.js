module.exports = { ...require("./jest-preset"), globalSetup: undefined };

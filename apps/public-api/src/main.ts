import { runService } from "@emailsvc/runtime";
import { createApp, createInternalApp } from "./app";
import { createDeps } from "./deps";
import { readEnv } from "./env";

runService({ readEnv, createDeps, createApp, createInternalApp });

import { runService } from "@emailsvc/runtime";
import { createApp } from "./app";
import { createDeps } from "./deps";
import { readEnv } from "./env";

runService({ readEnv, createDeps, createApp });

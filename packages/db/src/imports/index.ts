// The imports aggregate (issue 25): import jobs, their chunked set-based lead writes with the checkpoint, and the
// rejected rows of the error report. Shared by public-api (upload, options, trigger, report) and the scheduler.
export * from "./import-jobs.repo";
export * from "./import-chunk.repo";
export * from "./import-runs.repo";
export * from "./rejected-rows.repo";
export * from "./import-preview.repo";

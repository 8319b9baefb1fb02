export { createSimulator, type Simulator, type SimulatorOptions } from "./create-simulator";
export { recipientOutcome, sesEventsFor } from "./notifications/ses-events";
export type { SimMessage, SimIdentity, NotificationRecord, RuntimeConfig } from "./state/types";

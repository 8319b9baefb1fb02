import { z } from "zod";

/**
 * A project's id that came from a trusted source: the API-key lookup (`AuthContext.projectId`), a message
 * payload parsed with the catalogue's schemas, a row read from the database, or `projectIdOf` below. Every
 * repository that reads or writes one project's data takes it first (after the db handle), so a plain string
 * from a URL or a body cannot reach a tenant query unchecked. A compile-time brand only: the value is the
 * project's UUID text, unchanged. eslint refuses `as ProjectId` anywhere but this file.
 */
export const projectIdSchema = z.uuid().brand<"ProjectId">();
export type ProjectId = z.infer<typeof projectIdSchema>;

/**
 * The one named conversion from a plain string: for code that has already checked the id itself (an admin
 * route that resolved the project, a row of a query typed by hand) and for tests and their factories.
 */
export const projectIdOf = (id: string): ProjectId => id as ProjectId;

import type { Db } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { type Role, roleIn } from "./accounts.repo";
import { type Actor, isPlatform } from "./admin-access";

/** Only an owner grants or takes away the owner role (an invitation as owner included); admins the other roles. */
export async function assertMayGrant(db: Db, actor: Actor, projectId: string, role: Role): Promise<void> {
  if (role !== "owner" || isPlatform(actor) || actor.type !== "user") return;
  if ((await roleIn(db, projectId, actor.user.id)) !== "owner")
    throw new AppError(ErrorCode.FORBIDDEN, "Forbidden: only an owner may grant or remove the owner role");
}

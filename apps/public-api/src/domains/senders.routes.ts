import { Router } from "express";
import { AppError, ErrorCode, parseInput } from "@emailsvc/http";
import { senderOwnedByAnotherProject, type Db } from "@emailsvc/db";
import { asciiDomainAddress } from "@emailsvc/contracts";
import { addSenderSchema } from "./senders.schemas";
import { projectOf } from "../projects/project-of";

/** The admin API's senders: an address marked verified without the provider round trip. */
export function sendersRouter(deps: { db: Db }): Router {
  const { db } = deps;
  const r = Router();

  // Local use: a sender address marked verified without the provider round trip (dev stack, demos, tests).
  r.post("/projects/:projectId/senders", async (req, res) => {
    const body = parseInput(addSenderSchema, req.body);
    const project = { id: await projectOf(db, req.params.projectId) };
    const email = asciiDomainAddress(body.email);
    // The domain-service's ownership rule: an address (or its domain) another project has is not added here as
    // verified, or that project's sender could be used by this one.
    if (await senderOwnedByAnotherProject(db, project.id, email))
      throw new AppError(ErrorCode.CONFLICT, `${email} is already registered by another project`);
    const sender = await db.prisma.senderProfile.upsert({
      where: { projectId_senderEmail: { projectId: project.id, senderEmail: email } },
      create: {
        projectId: project.id,
        senderEmail: email,
        senderName: body.name,
        emailVerified: true,
        active: true,
      },
      update: { senderName: body.name, emailVerified: true, active: true },
    });
    res.status(201).json({
      success: true,
      sender: {
        id: sender.id,
        sender_email: sender.senderEmail,
        sender_name: sender.senderName,
        email_verified: sender.emailVerified,
      },
    });
  });

  return r;
}

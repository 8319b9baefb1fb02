import { CAMPAIGN_LIMITS, senderDomain, type ProjectId } from "@emailsvc/contracts";
import { contentVariables } from "@emailsvc/content";
import {
  type CampaignContent,
  countAudience,
  leadVariables,
  loadAudienceSegments,
  projectPostalAddress,
  sampleAudience,
  sendingDomainState,
} from "@emailsvc/db";
import { checkSenderVerified, loadTemplate } from "@emailsvc/sending";
import type { CampaignDeps } from "./campaign-deps";

/** One finding of the pre-flight check. */
export interface PreflightIssue {
  code: string;
  message: string;
  count?: number;
}

export interface Preflight {
  /** No blocking error: the campaign may start. */
  ok: boolean;
  errors: PreflightIssue[];
  warnings: PreflightIssue[];
  /** leads the audience names, and the ones it goes to after consent and suppressions */
  audience: number;
  recipients: number;
  excluded: Record<string, number>;
  html_bytes: number;
  /** the variables the content uses */
  variables: string[];
  /** variables a sample of the recipients has no value for */
  missing_variables: { variable: string; missing: number; sample: number; examples: string[] }[];
}

/** Recipients the variable check looks at. */
const SAMPLE = 100;

const EXCLUDED_WORDING: Record<string, string> = {
  unsubscribed: "unsubscribed",
  not_subscribed: "not opted in to marketing (subscription unknown)",
  suppressed_bounce: "suppressed after a bounce",
  suppressed_complaint: "suppressed after a complaint",
  suppressed_unsubscribed: "suppressed after unsubscribing",
  suppressed_manual: "suppressed by hand",
};

/**
 * The pre-flight check before a campaign starts (issue 24): what blocks it (sender not verified or its domain not
 * DKIM-signed, no possible one-click unsubscribe link, no postal address for the footer, no recipients, an unknown
 * segment or template) and what deserves a look (leads left out and why, variables a sample of recipients lacks,
 * HTML that Gmail clips).
 */
export async function preflightCampaign(
  deps: CampaignDeps,
  projectId: ProjectId,
  c: CampaignContent,
): Promise<Preflight> {
  const errors: PreflightIssue[] = [];
  const warnings: PreflightIssue[] = [];
  const { db } = deps;

  const sender = await checkSenderVerified(db, projectId, c.fromEmail);
  const domain = senderDomain(c.fromEmail);
  if (!sender.verified)
    errors.push({
      code: "sender_not_verified",
      message: `the sender ${c.fromEmail} is not verified: verify the address or the domain ${domain}`,
    });
  const dkim = await sendingDomainState(db, projectId, domain);
  if (!dkim.dkimVerified)
    errors.push({
      code: "domain_not_dkim_verified",
      message: dkim.registered
        ? `the domain ${domain} is not DKIM-verified yet: bulk mail must be DKIM-signed by its own domain`
        : `the domain ${domain} is not registered: bulk mail must be DKIM-signed by its own domain (POST /domains/register)`,
    });

  let url: URL | null = null;
  try {
    url = new URL(deps.publicBaseUrl);
  } catch {
    /* reported below */
  }
  if (!url)
    errors.push({
      code: "no_unsubscribe_link",
      message: "no unsubscribe link is possible: PUBLIC_BASE_URL is not a URL",
    });
  else if (url.protocol !== "https:")
    // blocking in production, unless the base URL is this machine (a local stack: nobody's mailbox sees it)
    (deps.production && !["localhost", "127.0.0.1", "[::1]"].includes(url.hostname) ? errors : warnings).push(
      {
        code: "unsubscribe_not_https",
        message: `the one-click unsubscribe link (RFC 8058) needs HTTPS; PUBLIC_BASE_URL is ${url.origin}`,
      },
    );
  if (!(await projectPostalAddress(db, projectId)))
    errors.push({
      code: "postal_address_missing",
      message:
        "the project has no postal address for the compliance footer (pnpm admin projects set --postal-address)",
    });

  let html = c.html ?? "";
  let text = c.text;
  if (c.templateId) {
    const t = await loadTemplate(deps, projectId, { id: c.templateId });
    if (!t) errors.push({ code: "template_not_found", message: `template ${c.templateId} not found` });
    else ({ html, text } = t.template);
  }
  const htmlBytes = Buffer.byteLength(html, "utf8");
  if (htmlBytes > CAMPAIGN_LIMITS.gmailClipBytes)
    warnings.push({
      code: "html_clipped",
      message: `the HTML is ${(htmlBytes / 1024).toFixed(0)} KB: Gmail clips messages over 102 KB (the footer and tracking add more)`,
    });

  const { segments, unknown } = await loadAudienceSegments(db, projectId, c.audience);
  if (unknown) errors.push({ code: "segment_not_found", message: `segment ${unknown} not found` });
  const counts = await countAudience(db, projectId, c.audience, segments, c.emailType);
  if (counts.recipients === 0)
    errors.push({
      code: "no_recipients",
      message: `the audience has no recipient (${counts.audience} leads named, none subscribed and unsuppressed)`,
    });
  for (const [reason, n] of Object.entries(counts.excluded))
    if (n > 0)
      warnings.push({
        code: `excluded_${reason}`,
        message: `${n} lead${n === 1 ? "" : "s"} of the audience left out: ${EXCLUDED_WORDING[reason] ?? reason}`,
        count: n,
      });

  const variables = contentVariables({ subject: c.subject, html, text }, c.templateId !== null);
  const missing: Preflight["missing_variables"] = [];
  if (variables.length && counts.recipients > 0) {
    const sample = await sampleAudience(db, projectId, c.audience, segments, c.emailType, SAMPLE);
    for (const name of variables) {
      const lacking = sample.filter((lead) => !(name in leadVariables(lead, [name])));
      if (lacking.length)
        missing.push({
          variable: name,
          missing: lacking.length,
          sample: sample.length,
          examples: lacking.slice(0, 3).map((l) => l.email),
        });
    }
    for (const m of missing)
      warnings.push({
        code: "missing_variable",
        message: `{{${m.variable}}} has no value for ${m.missing} of ${m.sample} sampled recipients (it renders empty or its fallback)`,
        count: m.missing,
      });
  }

  return {
    ok: errors.length === 0,
    errors,
    warnings,
    audience: counts.audience,
    recipients: counts.recipients,
    excluded: counts.excluded,
    html_bytes: htmlBytes,
    variables,
    missing_variables: missing,
  };
}

import { renderTemplate } from "@emailsvc/content/render-template";

export type Preview =
  { ok: true; subject: string; html: string; variablesUsed: string[] } | { ok: false; problem: string };

/**
 * The template as a send would render it: packages/content's renderTemplate itself (the send path's renderer), over
 * the sample variables the user typed as JSON.
 */
export function renderPreview(subject: string, html: string, variablesJson: string): Preview {
  let vars: unknown;
  try {
    vars = variablesJson.trim() ? JSON.parse(variablesJson) : {};
  } catch (err) {
    return { ok: false, problem: `The sample variables are not valid JSON: ${(err as Error).message}` };
  }
  if (!vars || typeof vars !== "object" || Array.isArray(vars))
    return { ok: false, problem: 'The sample variables must be a JSON object, like {"name": "Ada"}' };
  try {
    const s = renderTemplate(subject, vars as Record<string, unknown>, { html: false });
    const h = renderTemplate(html, vars as Record<string, unknown>, { html: true });
    const used = [...new Set([...s.variablesUsed, ...h.variablesUsed])];
    return { ok: true, subject: s.text, html: h.text, variablesUsed: used };
  } catch (err) {
    return { ok: false, problem: (err as Error).message };
  }
}

import { renderDoubleBraces } from "./render-double-braces";
import { renderTemplate } from "./render-template";

/**
 * The top-level names a content's subject, HTML and text use (`{{first_name}}`, `{{plan.name}}` → `plan`), in the
 * syntax it is written in (a stored template's `{var}`, else `{{var}}`). A campaign stores only these per
 * recipient, and its pre-flight check looks for them in a sample of its leads.
 */
export function contentVariables(
  content: { subject: string; html: string; text: string | null },
  fromTemplate: boolean,
): string[] {
  const names = new Set<string>();
  for (const part of [content.subject, content.html, content.text ?? ""]) {
    const used = fromTemplate
      ? renderTemplate(part, {}, { html: false }).variablesUsed
      : renderDoubleBraces(part, {}, { html: false }).variablesUsed;
    for (const name of used) names.add(name.split(".")[0]!);
  }
  return [...names];
}

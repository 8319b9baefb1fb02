import type { LeadVariablesRow } from "./campaign-audience";

/**
 * A campaign recipient's variables: its lead's fields (`email`, `first_name`, `last_name`, `phone`) and attributes
 * (a field wins over an attribute of the same name), only the `names` the content uses. Missing and null values are
 * left out, so the content's fallbacks apply.
 */
export function leadVariables(lead: LeadVariablesRow, names: readonly string[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    email: lead.email,
    first_name: lead.first_name,
    last_name: lead.last_name,
    phone: lead.phone,
  };
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const value = Object.hasOwn(fields, name)
      ? fields[name]
      : lead.attributes && Object.hasOwn(lead.attributes, name)
        ? lead.attributes[name]
        : undefined;
    if (value !== undefined && value !== null && value !== "") out[name] = value;
  }
  return out;
}

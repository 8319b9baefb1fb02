import {
  type EmailContent,
  htmlToText,
  injectTracking,
  type RenderedContent,
  renderDoubleBraces,
  renderTemplate,
} from "@emailsvc/content";

export interface RenderInput extends EmailContent {
  activityId: string;
  /** Per-recipient variables (batch); single sends arrive already rendered. */
  data: Record<string, unknown> | null;
  /** A stored template's syntax ({var}) instead of {{var}}. */
  fromTemplate: boolean;
  tracking: { baseUrl: string; secret: string } | null;
}

export type Rendered = RenderedContent;

/** Per-activity content: batch variables, then the open pixel and signed click links, and a text part. */
export function renderActivity(input: RenderInput): Rendered {
  let { subject, html, text } = input;
  if (input.data) {
    const render = input.fromTemplate ? renderTemplate : renderDoubleBraces;
    subject = render(subject, input.data, { html: false }).text;
    html = render(html, input.data, { html: true }).text;
    if (text) text = render(text, input.data, { html: false }).text;
  }
  const plain = text ?? htmlToText(html);
  const tracked = input.tracking
    ? injectTracking(html, { activityId: input.activityId, ...input.tracking })
    : html;
  return { subject, html: tracked, text: plain };
}

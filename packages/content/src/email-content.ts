/**
 * What an email says: the one shape of subject and bodies that templates, accepted sends and the send-worker's
 * rendering share. `text` is null until a text part is made from the HTML (the send-worker makes one).
 */
export interface EmailContent {
  subject: string;
  html: string;
  text: string | null;
}

/** Content ready to go out: every part present. */
export interface RenderedContent extends EmailContent {
  text: string;
}

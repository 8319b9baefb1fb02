import { RenderLimitError } from "@emailsvc/content";
import { AppError, ErrorCode } from "@emailsvc/contracts";

/**
 * Runs a rendering of the client's content; past the content package's limits the answer is a 400 naming what
 * was rendered ("html_body is longer than 5,000,000 characters once rendered"), not a process out of memory.
 */
export function rendered<T>(field: string, render: () => T): T {
  try {
    return render();
  } catch (err) {
    if (err instanceof RenderLimitError)
      throw new AppError(ErrorCode.VALIDATION, `${field} is ${err.message}`);
    throw err;
  }
}

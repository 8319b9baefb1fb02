// The listings' `pagination` object; the page and its total are read by packages/db's listPage.
export { COUNT_CAP, countCapped, listPage, type Total } from "@emailsvc/db";

export function pagination(page: number, perPage: number, total: number) {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}

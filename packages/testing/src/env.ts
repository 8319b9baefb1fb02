/** The list of this package run's child services (global-setup names it), for killOnExit; unset outside jest. */
export function testChildrenFile(): string | undefined {
  return process.env.TEST_CHILDREN_FILE;
}

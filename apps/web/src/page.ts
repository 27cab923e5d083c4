/**
 * What every page component receives from the router. Pages import it from here rather than from
 * the route table, which loads the pages, so no page depends on the table that depends on it.
 */
export interface PageProps {
  /** Values of the pattern's `:name` segments. */
  params: Record<string, string>
}

/** The upload page as the benchmarks drive it: pick a file as a person would, read the link. */
import { callOn, findByRole, type Cdp } from './cdp.js'

export const click = (cdp: Cdp, page: string, objectId: string) =>
  callOn(cdp, page, objectId, 'function () { this.click() }')

/** Picks `path` through the page's "Choose files" button, which opens the file chooser. */
export async function pickFile(
  cdp: Cdp,
  page: string,
  path: string,
  timeoutMs: number,
): Promise<void> {
  await cdp.send('Page.setInterceptFileChooserDialog', { enabled: true }, page)
  const chooser = cdp.waitFor('Page.fileChooserOpened')
  await click(cdp, page, await findByRole(cdp, page, 'button', 'Choose files', timeoutMs))
  const { backendNodeId } = (await chooser) as { backendNodeId: number }
  await cdp.send('DOM.setFileInputFiles', { files: [path], backendNodeId }, page)
}

/** The share link the page shows once an upload is done. */
export async function readLink(cdp: Cdp, page: string, timeoutMs: number): Promise<string> {
  const field = await findByRole(cdp, page, 'textbox', 'Share link', timeoutMs)
  return callOn<string>(cdp, page, field, 'function () { return this.value }')
}

/**
 * Screenshots of a page as it stands, in the light and dark colour schemes at phone (360 px) and
 * desktop (1280 px) width, saved as test artifacts under e2e/artifacts/screenshots/ as
 * `<name>-<scheme>-<width>.png`. The page keeps its state: only the media emulation and the
 * viewport change, and both are put back afterwards.
 */
import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

import type { Page } from 'playwright-core'

export const SCREENSHOT_DIR = fileURLToPath(new URL('./artifacts/screenshots/', import.meta.url))

export const SCREENSHOT_WIDTHS = [360, 1280] as const
export const COLOR_SCHEMES = ['light', 'dark'] as const

export function screenshotName(
  name: string,
  scheme: (typeof COLOR_SCHEMES)[number],
  width: (typeof SCREENSHOT_WIDTHS)[number],
): string {
  return `${name}-${scheme}-${width}.png`
}

/** Roles a person operates; each needs an accessible name to be found and understood. */
const CONTROL_ROLES =
  'button|link|textbox|searchbox|combobox|listbox|checkbox|radio|switch|slider|spinbutton|tab|menuitem'
const UNNAMED_CONTROL = new RegExp(`^\\s*- (${CONTROL_ROLES})(?: \\[[^\\]]*\\])*(?::.*)?$`)

/** Lines of the page's accessibility tree that are controls without an accessible name. */
export async function unnamedControls(page: Page): Promise<string[]> {
  const tree = await page.locator('body').ariaSnapshot()
  return tree
    .split('\n')
    .filter((line) => UNNAMED_CONTROL.test(line))
    .map((line) => line.trim())
}

export interface Captured {
  paths: string[]
  /** Widths at which the page was wider than the viewport (a horizontal scrollbar). */
  overflowAt: number[]
  /** The page background in each scheme, as computed by the browser. */
  background: Record<(typeof COLOR_SCHEMES)[number], string>
}

/** Saves the four variants of the page and reports how it fit each. */
export async function captureAll(page: Page, name: string): Promise<Captured> {
  await mkdir(SCREENSHOT_DIR, { recursive: true })
  const viewport = page.viewportSize() ?? { width: 1280, height: 900 }
  const captured: Captured = { paths: [], overflowAt: [], background: { light: '', dark: '' } }
  try {
    for (const width of SCREENSHOT_WIDTHS) {
      await page.setViewportSize({ width, height: width < 600 ? 780 : 900 })
      for (const scheme of COLOR_SCHEMES) {
        await page.emulateMedia({ colorScheme: scheme })
        const fit = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          background: getComputedStyle(document.body).backgroundColor,
        }))
        if (fit.scrollWidth > width && !captured.overflowAt.includes(width)) {
          captured.overflowAt.push(width)
        }
        captured.background[scheme] = fit.background
        const path = SCREENSHOT_DIR + screenshotName(name, scheme, width)
        await page.screenshot({ path, fullPage: true, animations: 'disabled', caret: 'hide' })
        captured.paths.push(path)
      }
    }
  } finally {
    await page.emulateMedia({ colorScheme: 'light' })
    await page.setViewportSize(viewport)
  }
  return captured
}

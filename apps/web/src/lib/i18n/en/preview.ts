/** Text of in-page previews of downloads (download page and inbox). */
export const preview = {
  'preview.open': 'Open',
  'preview.openLast': 'Open (uses the last download)',
  'preview.opening': 'Opening…',
  'preview.countsOnce':
    'Opening shows the file here; saving it afterwards counts no further download.',
  'preview.save': 'Save',
  'preview.lastOpened':
    'That was the last download: this link no longer works. Save the file before you leave this page.',
  'preview.region': 'Preview of {name}',
  'preview.copyText': 'Copy text',
  'preview.failed': 'The file could not be opened: {message}',
  'preview.imageBroken': 'This browser cannot show this image. Save it to open it elsewhere.',
  'preview.notPdf': 'This file is not a PDF this browser can show. Save it to open it elsewhere.',
  'download.buttonLast': 'Download (uses the last download)',
  'inbox.entry.open': 'Open {name}',
  'inbox.entry.openLast': 'Open {name} (uses the last download)',
  'inbox.entry.downloadLast': 'Download {name} (uses the last download)',
  'inbox.entry.save': 'Save {name}',
} as const

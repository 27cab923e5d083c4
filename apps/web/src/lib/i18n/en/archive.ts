/** Text of the look inside a ZIP download (`lib/preview/ArchivePreview.svelte`). */
export const archive = {
  'archive.title': 'Inside the archive',
  'archive.intro':
    'See the files this archive holds, then view or save single files without downloading all of it.',
  'archive.counts':
    'Opening the archive counts as one download; viewing and saving its files afterwards does not count again for some hours.',
  'archive.open': 'Open the archive',
  'archive.openLast': 'Open the archive (uses the last download)',
  'archive.openAgain': 'Open the archive again',
  'archive.opening': 'Reading the list of files…',
  'archive.failed': 'The archive could not be read. {message}',
  'archive.until':
    'You can view and save files from it without counting another download until {date}.',
  'archive.lapsed':
    'The time to view and save single files from this archive has run out. Opening it again counts another download.',
  'archive.listLabel': 'Files in the archive',
  'archive.view': 'View',
  'archive.viewNamed': 'View {name}',
  'archive.save': 'Save',
  'archive.saveNamed': 'Save {name}',
  'archive.fetching': 'Fetching the file…',
  'archive.saved': '{name} saved.',
  'archive.saveCancelled': 'Saving {name} was cancelled.',
  'archive.entryFailed': '{name} could not be read. {message}',
  'archive.unsupported': 'Cannot be read here',
} as const

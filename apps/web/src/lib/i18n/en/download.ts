/** Text of the download page (`/d/:id`). */
export const download = {
  'media.play': 'Play here',
  'media.counts':
    'Playing counts as one download, as downloading does; seeking and replaying count nothing more.',
  'media.opening': 'Opening…',
  'media.failed': 'This file cannot be played here: {message}',
  'media.label': '{name}, decrypted as it plays',
  'download.title': 'Download',
  'download.titleLocked': 'Password required',
  'download.checking': 'Checking the link…',
  'download.lockedIntro': 'These files are protected by a password.',
  'download.unlock': 'Unlock',
  'download.unlocking': 'Checking the password…',
  'download.filesLabel': 'Files',
  'download.archive': 'These files arrive as one ZIP archive.',
  'download.total': { one: '{count} file, {size}', other: '{count} files, {size}' },
  'download.expires': 'Expires {date}',
  'download.left': { one: '{count} download left', other: '{count} downloads left' },
  'download.counts': 'Downloading counts toward the limit.',
  'download.lastDone': 'That was the last download; this link no longer works.',
  'download.button': 'Download',
  'download.downloading': 'Downloading and decrypting…',
  'download.done': 'Download complete.',
  'download.cancelled': 'Download cancelled.',
  'download.failed': 'The download failed: {message}',
  'download.noMetadata': 'The file names are not available.',
  'download.unnamed': 'download',
  'download.archiveName': 'files.zip',
  'download.blobWarning':
    'This browser cannot save straight to disk, so the file is assembled in memory first. Files over {limit} cannot be downloaded here; use a current Chrome, Edge or Firefox.',
  'download.blobTooLarge':
    'This file is too large to download in this browser ({size}, limit {limit}). Use a current Chrome, Edge or Firefox.',
} as const

/** Text of the history page (`/history`). */
export const history = {
  'history.title': 'My uploads',
  'history.intro':
    'Everything sent from this browser. The list stays on this device; forgetting an item does not delete it from the server.',
  'history.empty': 'Nothing sent from this browser yet.',
  'history.kind.file': 'Files',
  'history.kind.note': 'Note',
  'history.kind.request': 'File request',
  'history.link': 'Link',
  'history.refreshing': 'Updating…',
  'history.gone': 'No longer available',
  'history.status.unknown': 'Status unknown · Expires {date}',
  'history.status.file': {
    one: '{count} download left · Expires {date}',
    other: '{count} downloads left · Expires {date}',
  },
  'history.status.note': {
    one: '{count} view left · Expires {date}',
    other: '{count} views left · Expires {date}',
  },
  'history.status.request': {
    one: '{count} upload left · Expires {date}',
    other: '{count} uploads left · Expires {date}',
  },
  'history.status.requestClosed': {
    one: '{count} upload left · Expires {date} · Closed to new uploads',
    other: '{count} uploads left · Expires {date} · Closed to new uploads',
  },
  'history.created': 'Sent {date}',
  'history.delete': 'Delete {name}',
  'history.forget': 'Forget {name}',
  'history.forgetButton': 'Forget',
  'history.forgetConfirm':
    'Forget "{name}"? This browser then no longer has its link or the right to delete it. The upload itself stays on the server until it expires.',
  'history.forgetGoneConfirm': 'Remove "{name}" from this list?',
  'history.deleteConfirm': 'Delete "{name}" from the server? This cannot be undone.',
  'history.deleted': '"{name}" was deleted.',
  'history.deleteFailed': 'Deleting failed: {message}',
  'history.noteLabel': 'Note ({type})',
  'history.requestLabel': 'File request',
  'history.unavailable': 'This browser cannot keep a history (storage is blocked).',
} as const

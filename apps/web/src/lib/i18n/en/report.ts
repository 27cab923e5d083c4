/** Text of abuse reports (the Report link of the download and note pages) and of takedowns. */
export const report = {
  'error.removed.title': 'Removed by the operator',
  'error.removed.body': 'The operator of this service removed what this link pointed to.',
  'error.removed.reason': 'The operator’s reason: {reason}',
  'report.link': 'Report',
  'report.title': 'Report this to the operator',
  'report.intro':
    'Tell the operator of this service what is wrong with this content, for example that it is illegal or abusive.',
  'report.reason': 'Reason',
  'report.includeKey': 'Include the key of this link',
  'report.keyNote':
    'Without the key the operator cannot see the content: it is encrypted, and only this link opens it.',
  'report.send': 'Send report',
  'report.sending': 'Sending the report …',
  'report.sent': 'Thank you. Your report was sent to the operator.',
  'report.failed': 'The report could not be sent. {message}',
} as const

/**
 * German (Deutsch). Formal address (Sie).
 *
 * Glossary: link = Link; share link = Freigabelink; upload (noun) = Upload, to upload =
 * hochladen; download = Download, to download = herunterladen; inbox = Posteingang; inbox link =
 * Posteingangslink; upload link = Upload-Link; file request = Dateianfrage; note = Notiz;
 * password = Passwort; expiry = Ablauf („Läuft ab“); view = Aufruf; sender = Absender;
 * requester = anfragende Person; key = Schlüssel; encrypted = verschlüsselt; upload allowance =
 * Upload-Kontingent; to delete = löschen; to forget = vergessen;
 * operator = Betreiber; imprint = Impressum; privacy statement = Datenschutzerklärung.
 */
import type { Translation } from '../messages'

export default {
  'app.name': 'fileshare',
  'app.tagline':
    'Dateien, Notizen und Dateianfragen, verschlüsselt in Ihrem Browser, bevor sie ihn verlassen.',
  'app.logoAlt': 'Logo von {title}',
  'app.footer':
    'Ende-zu-Ende-verschlüsselt: Der Schlüssel bleibt im Link und erreicht nie den Server.',
  'app.skipToContent': 'Zum Inhalt springen',
  'app.documentTitle': '{page} · {site}',
  'app.loading': 'Wird geladen …',
  'app.leaveBusy':
    'Wenn Sie die Seite jetzt verlassen, wird abgebrochen oder geht verloren, was hier gerade läuft. Trotzdem verlassen?',
  'app.loadFailed':
    'Diese Seite konnte nicht geladen werden. Prüfen Sie Ihre Verbindung und laden Sie neu.',
  'app.language': 'Sprache',
  'app.configFailed':
    'Der Server ist nicht erreichbar. Prüfen Sie Ihre Verbindung und laden Sie neu.',

  'nav.label': 'Hauptmenü',
  'nav.menu': 'Menü',
  'nav.upload': 'Dateien senden',
  'nav.note': 'Notiz',
  'nav.request': 'Dateien anfordern',
  'nav.history': 'Meine Uploads',

  'action.copy': 'Kopieren',
  'action.copied': 'Kopiert',
  'action.copyFailed':
    'Kopieren fehlgeschlagen; markieren Sie den Text und kopieren Sie ihn selbst.',
  'action.share': 'Teilen',
  'action.copyNamed': 'Kopieren: {label}',
  'action.shareNamed': 'Teilen: {label}',
  'action.shareCopied': 'Teilen ist hier nicht möglich, daher wurde der Link kopiert.',
  'action.cancel': 'Abbrechen',
  'action.delete': 'Löschen',
  'action.retry': 'Erneut versuchen',
  'action.close': 'Schließen',
  'action.showPassword': 'Passwort anzeigen',
  'action.hidePassword': 'Passwort verbergen',

  'field.password': 'Passwort',
  'field.passwordOptional': 'Passwort (optional)',
  'field.passwordHint': 'Wer den Link öffnet, braucht zusätzlich dieses Passwort.',

  'option.downloads': { one: '{count} Download', other: '{count} Downloads' },
  'option.views': { one: '{count} Aufruf', other: '{count} Aufrufe' },
  'option.uploads': { one: '{count} Upload', other: '{count} Uploads' },

  'progress.label': 'Fortschritt',
  'progress.bytes': '{sent} von {total}',
  'progress.speed': '{rate}/s',
  'progress.eta': 'noch {time}',
  'progress.etaUnknown': 'Restzeit wird geschätzt …',
  'progress.transport.websocket': 'WebSocket',
  'progress.transport.http': 'HTTP',
  'progress.via': 'Übertragungsweg: {transport}',
  'progress.preparing': 'Wird vorbereitet …',

  'qr.alt': 'QR-Code des Links',

  'time.expiresAt': 'Läuft ab am {date}',
  'time.expired': 'Abgelaufen',

  'error.title': 'Etwas ist schiefgegangen',
  'error.notFound.title': 'Nicht gefunden',
  'error.notFound.body':
    'Unter diesem Link ist nichts gespeichert. Möglicherweise wurde es gelöscht, oder der Link wurde nicht vollständig kopiert (einschließlich des Teils nach #).',
  'error.gone.title': 'Nicht mehr verfügbar',
  'error.gone.body': 'Dieser Link ist abgelaufen oder sein Download-Limit ist ausgeschöpft.',
  'error.gone.expired': 'Dieser Link ist abgelaufen.',
  'error.gone.usedUp':
    'Dieser Link wurde so oft geöffnet, wie er erlaubte, und funktioniert nicht mehr.',
  'error.sendNew': 'Etwas Neues senden',
  'error.badLink.title': 'Defekter Link',
  'error.badLink.body':
    'Dieser Link ist unvollständig oder beschädigt. Fordern Sie ihn erneut an und kopieren Sie ihn vollständig, einschließlich des Teils nach #.',
  'error.wrongKey.title': 'Der Schlüssel des Links passt nicht',
  'error.wrongKey.body':
    'Der Schlüssel des Links öffnet dies nicht. Prüfen Sie, ob Sie den ganzen Link kopiert haben, einschließlich des Teils nach #.',
  'error.wrongKey.file':
    'Der Schlüssel des Links öffnet diese Datei nicht. Prüfen Sie, ob Sie den ganzen Link kopiert haben, einschließlich des Teils nach #.',
  'error.wrongKey.note':
    'Der Schlüssel des Links öffnet diese Notiz nicht. Prüfen Sie, ob Sie den ganzen Link kopiert haben, einschließlich des Teils nach #.',
  'error.ownerTokenRefused':
    'Der Server hat das Recht dieses Browsers, es zu ändern, nicht anerkannt. Vielleicht gehört es zu einem Link, der von anderswo gesendet wurde.',
  'error.locked.title': 'Zu viele falsche Passwörter',
  'error.locked.body': 'Versuchen Sie es in {time} erneut.',
  'error.locked.bodyLater': 'Versuchen Sie es später erneut.',
  'error.locked.message': 'Zu viele falsche Passwörter. Versuchen Sie es in {time} erneut.',
  'error.locked.messageLater': 'Zu viele falsche Passwörter. Versuchen Sie es später erneut.',
  'error.wrongPassword': 'Falsches Passwort. Versuchen Sie es erneut.',
  'error.sourceChanged': '{name} wurde während des Sendens geändert. Senden Sie die Datei erneut.',
  'error.sourcesChanged': 'Die Dateien wurden während des Sendens geändert. Senden Sie sie erneut.',
  'error.network':
    'Der Server ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
  'error.disabled': 'Diese Funktion ist auf diesem Server abgeschaltet.',
  'error.tooLarge': 'Das ist größer, als der Server annimmt.',
  'error.rateLimited': 'Zu viele Anfragen. Warten Sie einen Moment und versuchen Sie es erneut.',
  'error.quotaExceeded':
    'Das ist mehr, als von Ihrem Upload-Kontingent auf diesem Server übrig ist. Versuchen Sie einen kleineren Upload oder warten Sie, bis sich das Kontingent erneuert.',
  'error.quotaExhausted':
    'Ihr Upload-Kontingent auf diesem Server ist aufgebraucht. Es erneuert sich in {time}.',
  'error.quotaExhaustedLater':
    'Ihr Upload-Kontingent auf diesem Server ist aufgebraucht. Versuchen Sie es später erneut.',
  'quota.left':
    'Ihr Upload-Kontingent auf diesem Server: {left} von {limit} übrig. Es erneuert sich in {time}.',
  'quota.over':
    'Das ist größer als die {left}, die von Ihrem Upload-Kontingent auf diesem Server übrig sind. Es erneuert sich in {time}.',
  'error.loginRequired': 'Dafür müssen Sie sich anmelden.',
  'error.generic': 'Etwas ist schiefgegangen: {message}',
  'error.integrity':
    'Die Daten haben die Integritätsprüfung nicht bestanden: Sie sind beschädigt oder wurden manipuliert. Nichts davon ist vertrauenswürdig.',

  'notFound.title': 'Seite nicht gefunden',
  'notFound.body': 'Unter dieser Adresse gibt es keine Seite.',
  'notFound.home': 'Zur Startseite',

  'upload.title': 'Dateien senden',
  'upload.intro':
    'Dateien werden in Ihrem Browser verschlüsselt. Nur wer den Link hat, kann sie öffnen.',
  'upload.drop': 'Dateien oder Ordner hier ablegen',
  'upload.dropActive': 'Loslassen zum Hinzufügen',
  'upload.chooseFiles': 'Dateien auswählen',
  'upload.chooseFolder': 'Ordner auswählen',
  'upload.reading': 'Ordner wird gelesen …',
  'upload.paste': 'Sie können auch Dateien oder einen Screenshot einfügen.',
  'upload.listLabel': 'Ausgewählte Dateien',
  'upload.folderItem': '{name} (Ordner)',
  'upload.remove': '{name} entfernen',
  'upload.total': { one: '{count} Datei, {size}', other: '{count} Dateien, {size}' },
  'upload.zipped': 'Mehrere Dateien oder ein Ordner werden als ein ZIP-Archiv gesendet.',
  'upload.tooLarge': 'Zusammen ist das größer als die {max}, die dieser Server annimmt.',
  'upload.tooMany': 'Dieser Server nimmt höchstens {max} Dateien pro Upload an.',
  'upload.empty': 'Fügen Sie mindestens eine Datei hinzu.',
  'upload.expiry': 'Läuft ab nach',
  'upload.downloads': 'Download-Limit',
  'upload.submit': 'Hochladen',
  'upload.preparing': 'Wird verschlüsselt …',
  'upload.uploading': 'Wird hochgeladen …',
  'upload.cancelled': 'Upload abgebrochen.',
  'upload.failed': 'Der Upload ist fehlgeschlagen: {message}',
  'upload.resuming': 'Verbindung verloren, wird fortgesetzt…',
  'upload.resumedAt': 'Fortgesetzt bei {size}.',
  'upload.unfinished':
    'Ein Upload von {name} wurde nicht abgeschlossen. Wählen Sie dieselben Dateien erneut, um ihn fortzusetzen.',
  'upload.resume': 'Upload fortsetzen',
  'upload.discard': 'Neuen Upload beginnen',
  'upload.resumeMismatch':
    'Das sind nicht die Dateien des unvollständigen Uploads: Name, Größe oder Änderungszeit weichen ab. Wählen Sie dieselben Dateien oder beginnen Sie einen neuen Upload.',
  'upload.resumeGone':
    'Der Server hat den unvollständigen Upload nicht mehr, er kann nicht fortgesetzt werden. Beginnen Sie einen neuen Upload.',
  'upload.resumePassword': 'Passwort des unvollständigen Uploads',
  'upload.resumePasswordHint':
    'Er ist passwortgeschützt: Geben Sie sein Passwort ein, um ihn fortzusetzen.',
  'upload.done.title': 'Ihre Dateien sind bereit zum Teilen',
  'upload.done.link': 'Freigabelink',
  'upload.done.what': '{names} ({total})',
  'upload.done.expires': 'Läuft ab am {date}',
  'upload.done.downloads': {
    one: 'Noch {count} Download',
    other: 'Noch {count} Downloads',
  },
  'upload.done.keepSafe':
    'Jeder mit diesem Link kann die Dateien herunterladen. Der Link lässt sich nicht wiederherstellen.',
  'upload.done.keepSafePassword':
    'Jeder mit diesem Link und dem Passwort kann die Dateien herunterladen. Senden Sie das Passwort auf einem anderen Weg als den Link (zum Beispiel per Telefon oder über einen anderen Messenger). Der Link lässt sich nicht wiederherstellen.',
  'upload.done.delete': 'Upload löschen',
  'upload.done.confirmDelete':
    'Diesen Upload jetzt löschen? Der Link funktioniert dann für niemanden mehr.',
  'upload.done.deleting': 'Wird gelöscht …',
  'upload.done.deleted': 'Der Upload wurde gelöscht.',
  'upload.done.deleteFailed': 'Löschen fehlgeschlagen: {message}',
  'upload.done.another': 'Weitere senden',

  'media.play': 'Hier abspielen',
  'media.playLast': 'Hier abspielen (verbraucht den letzten Download)',
  'media.counts':
    'Das Abspielen zählt wie das Herunterladen als ein Download; Spulen und erneutes Abspielen zählen nicht weiter.',
  'media.opening': 'Wird geöffnet …',
  'media.failed': 'Diese Datei kann hier nicht abgespielt werden: {message}',
  'media.label': '{name}, beim Abspielen entschlüsselt',
  'download.title': 'Herunterladen',
  'download.titleLocked': 'Passwort erforderlich',
  'download.checking': 'Link wird geprüft …',
  'download.lockedIntro': 'Diese Dateien sind mit einem Passwort geschützt.',
  'download.unlock': 'Entsperren',
  'download.unlocking': 'Passwort wird geprüft …',
  'download.filesLabel': 'Dateien',
  'download.archive': 'Diese Dateien kommen als ein ZIP-Archiv.',
  'download.total': { one: '{count} Datei, {size}', other: '{count} Dateien, {size}' },
  'download.expires': 'Läuft ab am {date}',
  'download.left': { one: 'Noch {count} Download', other: 'Noch {count} Downloads' },
  'download.counts': 'Das Herunterladen zählt zum Limit.',
  'download.lastDone': 'Das war der letzte Download; dieser Link funktioniert nicht mehr.',
  'download.button': 'Herunterladen',
  'download.downloading': 'Wird heruntergeladen und entschlüsselt …',
  'download.done': 'Download abgeschlossen.',
  'download.cancelled': 'Download abgebrochen.',
  'download.failed': 'Der Download ist fehlgeschlagen: {message}',
  'download.noMetadata': 'Die Dateinamen sind nicht verfügbar.',
  'download.unnamed': 'download',
  'download.archiveName': 'dateien.zip',
  'download.blobWarning':
    'Dieser Browser kann nicht direkt auf die Festplatte speichern, daher wird die Datei zuerst im Arbeitsspeicher zusammengesetzt. Dateien über {limit} lassen sich hier nicht herunterladen; verwenden Sie ein aktuelles Chrome, Edge oder Firefox.',
  'download.blobTooLarge':
    'Diese Datei ist zu groß für einen Download in diesem Browser ({size}, Limit {limit}). Verwenden Sie ein aktuelles Chrome, Edge oder Firefox.',
  'preview.open': 'Öffnen',
  'preview.openLast': 'Öffnen (verbraucht den letzten Download)',
  'preview.opening': 'Wird geöffnet …',
  'preview.countsOnce':
    'Öffnen zeigt die Datei hier an; wenn Sie sie danach speichern, zählt das keinen weiteren Download.',
  'preview.save': 'Speichern',
  'preview.lastOpened':
    'Das war der letzte Download: Dieser Link funktioniert nicht mehr. Speichern Sie die Datei, bevor Sie diese Seite verlassen.',
  'preview.region': 'Vorschau von {name}',
  'preview.copyText': 'Text kopieren',
  'preview.failed': 'Die Datei konnte nicht geöffnet werden: {message}',
  'preview.imageBroken':
    'Dieser Browser kann dieses Bild nicht anzeigen. Speichern Sie es, um es anderswo zu öffnen.',
  'preview.notPdf':
    'Diese Datei ist kein PDF, das dieser Browser anzeigen kann. Speichern Sie sie, um sie anderswo zu öffnen.',
  'download.buttonLast': 'Herunterladen (verbraucht den letzten Download)',
  'inbox.entry.open': '{name} öffnen',
  'inbox.entry.openLast': '{name} öffnen (verbraucht den letzten Download)',
  'inbox.entry.downloadLast': '{name} herunterladen (verbraucht den letzten Download)',
  'inbox.entry.save': '{name} speichern',

  'history.title': 'Meine Uploads',
  'history.intro':
    'Alles, was aus diesem Browser gesendet wurde. Die Liste bleibt auf diesem Gerät; einen Eintrag zu vergessen löscht ihn nicht vom Server.',
  'history.empty': 'Aus diesem Browser wurde noch nichts gesendet.',
  'history.kind.file': 'Dateien',
  'history.kind.note': 'Notiz',
  'history.kind.request': 'Dateianfrage',
  'history.link': 'Link',
  'history.refreshing': 'Wird aktualisiert …',
  'history.gone': 'Nicht mehr verfügbar',
  'history.status.unknown': 'Status unbekannt · Läuft ab am {date}',
  'history.status.file': {
    one: 'Noch {count} Download · Läuft ab am {date}',
    other: 'Noch {count} Downloads · Läuft ab am {date}',
  },
  'history.status.note': {
    one: 'Noch {count} Aufruf · Läuft ab am {date}',
    other: 'Noch {count} Aufrufe · Läuft ab am {date}',
  },
  'history.status.request': {
    one: 'Noch {count} Upload · Läuft ab am {date}',
    other: 'Noch {count} Uploads · Läuft ab am {date}',
  },
  'history.status.requestClosed': {
    one: 'Noch {count} Upload · Läuft ab am {date} · Für neue Uploads geschlossen',
    other: 'Noch {count} Uploads · Läuft ab am {date} · Für neue Uploads geschlossen',
  },
  'history.created': 'Gesendet am {date}',
  'history.delete': '{name} löschen',
  'history.forget': '{name} vergessen',
  'history.forgetButton': 'Vergessen',
  'history.forgetConfirm':
    '„{name}“ vergessen? Dieser Browser hat dann weder den Link noch das Recht, es zu löschen. Der Upload selbst bleibt auf dem Server, bis er abläuft.',
  'history.forgetGoneConfirm': '„{name}“ aus dieser Liste entfernen?',
  'history.deleteConfirm': '„{name}“ vom Server löschen? Das lässt sich nicht rückgängig machen.',
  'history.deleted': '„{name}“ wurde gelöscht.',
  'history.deleteFailed': 'Löschen fehlgeschlagen: {message}',
  'history.noteLabel': 'Notiz ({type})',
  'history.requestLabel': 'Dateianfrage',
  'history.unavailable':
    'Dieser Browser kann keinen Verlauf speichern (der Speicher ist blockiert).',

  'login.signIn': 'Anmelden',
  'login.signOut': 'Abmelden',
  'login.signedInAs': 'Angemeldet als {name}',
  'login.gate.title': 'Melden Sie sich an, um fortzufahren',
  'login.gate.files': 'Auf diesem Server können nur angemeldete Personen Dateien senden.',
  'login.gate.notes': 'Auf diesem Server können nur angemeldete Personen Notizen erstellen.',
  'login.gate.requests':
    'Auf diesem Server können nur angemeldete Personen Dateianfragen erstellen.',

  'note.new.title': 'Notiz schreiben',
  'note.new.intro':
    'Notizen werden in Ihrem Browser verschlüsselt. Der Link öffnet die Notiz nur begrenzt oft, danach ist sie weg.',
  'note.type.label': 'Art der Notiz',
  'note.type.text': 'Text',
  'note.type.markdown': 'Markdown',
  'note.type.code': 'Code',
  'note.type.password': 'Passwörter',
  'note.type.sshkey': 'SSH-Schlüssel',

  'note.text.label': 'Notiz',
  'note.markdown.label': 'Markdown',
  'note.markdown.preview': 'Vorschau',
  'note.markdown.previewEmpty': 'Die Vorschau erscheint hier, während Sie tippen.',
  'note.markdown.rules':
    'HTML wird als Text angezeigt, Bilder werden zu Links, und nur Web- und E-Mail-Links funktionieren.',
  'note.code.label': 'Code',
  'note.code.language': 'Hervorheben als',
  'note.code.auto': 'Automatisch erkennen',
  'note.code.plain': 'Reiner Text',
  'note.code.detected': 'Erkannt: {language}',
  'note.code.preview': 'Vorschau',
  'note.code.languageHint':
    'Die Sprache wird nicht mit der Notiz gespeichert; beim Lesen wird sie erkannt.',

  'note.pw.listLabel': 'Passworteinträge',
  'note.pw.entry': 'Eintrag {n}',
  'note.pw.label': 'Bezeichnung',
  'note.pw.username': 'Benutzername',
  'note.pw.password': 'Passwort',
  'note.lockPassword': 'Link-Passwort (optional)',
  'note.pw.url': 'Adresse',
  'note.pw.add': 'Eintrag hinzufügen',
  'note.pw.remove': 'Eintrag {n} entfernen',
  'note.pw.generate': 'Passwort für Eintrag {n} erzeugen',
  'note.pw.generateShort': 'Passwort erzeugen',
  'note.pw.removeShort': 'Entfernen',
  'note.pw.empty': 'Fügen Sie mindestens ein Passwort hinzu.',
  'note.gen.title': 'Passwortgenerator',
  'note.gen.length': 'Länge',
  'note.gen.lower': 'Kleinbuchstaben (a–z)',
  'note.gen.upper': 'Großbuchstaben (A–Z)',
  'note.gen.digits': 'Ziffern (0–9)',
  'note.gen.symbols': 'Sonderzeichen (!#$…)',
  'note.gen.noClass': 'Wählen Sie mindestens eine Zeichenart.',

  'note.ssh.generate': 'Ed25519-Schlüsselpaar erzeugen',
  'note.ssh.generating': 'Wird erzeugt …',
  'note.ssh.comment': 'Schlüsselkommentar (optional)',
  'note.ssh.commentHint': 'Oft user@host; er steht hinter dem öffentlichen Schlüssel.',
  'note.ssh.generated':
    'In Ihrem Browser wurde ein neues Schlüsselpaar erzeugt. Hinterlegen Sie den öffentlichen Schlüssel dort, wo Sie sich anmelden; die Notiz enthält beide Schlüssel.',
  'note.ssh.savePrivateKey': 'Privaten Schlüssel als Datei speichern',
  'note.ssh.unsupported':
    'Dieser Browser kann keine Ed25519-Schlüssel erzeugen. Fügen Sie stattdessen einen Schlüssel ein.',
  'note.ssh.label': 'SSH-Schlüssel',
  'note.ssh.hint':
    'Erzeugen Sie oben ein Paar oder fügen Sie einen privaten Schlüssel, einen öffentlichen Schlüssel oder beide ein.',
  'note.ssh.publicKey': 'Öffentlicher Schlüssel',
  'note.ssh.privateKey': 'Privater Schlüssel',
  'note.ssh.otherText': 'Weiterer Text',
  'note.ssh.fingerprint': 'Fingerabdruck {fingerprint}',

  'note.views': 'Aufruflimit',
  'note.expiry': 'Läuft ab nach',
  'note.size': '{used} von {max}',
  'note.sizeLimit': 'Bis zu {max}',
  'note.tooLarge': 'Die Notiz ist größer als die {max}, die dieser Server annimmt.',
  'note.empty': 'Schreiben Sie zuerst etwas.',
  'note.submit': 'Notiz erstellen',
  'note.creating': 'Wird verschlüsselt …',
  'note.failed': 'Die Notiz konnte nicht erstellt werden: {message}',

  'note.done.title': 'Ihre Notiz ist bereit zum Teilen',
  'note.done.link': 'Notizlink',
  'note.done.views': {
    one: 'Kann {count}-mal geöffnet werden',
    other: 'Kann {count}-mal geöffnet werden',
  },
  'note.done.expires': 'Läuft ab am {date}',
  'note.done.keepSafe':
    'Jeder mit diesem Link kann die Notiz lesen. Der Link lässt sich nicht wiederherstellen.',
  'note.done.keepSafePassword':
    'Jeder mit diesem Link und dem Passwort kann die Notiz lesen. Senden Sie das Passwort auf einem anderen Weg als den Link (zum Beispiel per Telefon oder über einen anderen Messenger). Der Link lässt sich nicht wiederherstellen.',
  'note.done.delete': 'Notiz löschen',
  'note.done.confirmDelete':
    'Diese Notiz jetzt löschen? Der Link funktioniert dann für niemanden mehr.',
  'note.done.deleting': 'Wird gelöscht …',
  'note.done.deleted': 'Die Notiz wurde gelöscht.',
  'note.done.deleteFailed': 'Löschen fehlgeschlagen: {message}',
  'note.done.another': 'Weitere Notiz schreiben',

  'note.view.title': 'Notiz',
  'note.view.titleLocked': 'Passwort erforderlich',
  'note.view.checking': 'Link wird geprüft …',
  'note.view.lockedIntro': 'Diese Notiz ist mit einem Passwort geschützt.',
  'note.view.unlock': 'Entsperren',
  'note.view.unlocking': 'Passwort wird geprüft …',
  'note.view.unlockNoView': 'Das Prüfen des Passworts verbraucht keinen Aufruf.',
  'note.view.kind': 'Art: {type}',
  'note.view.viewsLeft': { one: 'Noch {count} Aufruf', other: 'Noch {count} Aufrufe' },
  'note.view.expires': 'Läuft ab am {date}',
  'note.view.consumeWarning':
    'Das Öffnen der Notiz verbraucht einen ihrer Aufrufe. Nach dem letzten Aufruf ist die Notiz endgültig weg.',
  'note.view.reveal': {
    one: 'Anzeigen (verbraucht 1 von {count} Aufrufen)',
    other: 'Anzeigen (verbraucht 1 von {count} Aufrufen)',
  },
  'note.view.revealLast': 'Anzeigen (verbraucht den letzten Aufruf)',
  'note.view.revealing': 'Wird geöffnet …',
  'note.view.lastView':
    'Das war der letzte Aufruf: Die Notiz ist jetzt vom Server gelöscht. Kopieren Sie, was Sie brauchen, bevor Sie diese Seite verlassen.',
  'note.view.copyAll': 'Ganze Notiz kopieren',
  'note.view.copyUsername': 'Benutzernamen von {name} kopieren',
  'note.view.copyPassword': 'Passwort von {name} kopieren',
  'note.view.copyPublicKey': 'Öffentlichen Schlüssel {n} kopieren',
  'note.view.copyPrivateKey': 'Privaten Schlüssel {n} kopieren',
  'note.view.showPassword': 'Passwort von {name} anzeigen',
  'note.view.hidePassword': 'Passwort von {name} verbergen',
  'note.view.hidden': '••••••••',
  'note.view.entries': 'Passwörter',
  'note.view.noEntries': 'Diese Passwortliste ist leer.',

  'request.new.title': 'Dateien anfordern',
  'request.new.intro':
    'Bitten Sie andere, Ihnen Dateien zu senden. Sie werden im Browser der Absender verschlüsselt, und nur Ihr Posteingangslink öffnet sie.',
  'request.message': 'Nachricht an die Absender',
  'request.messageHint':
    'Wird auf der Upload-Seite angezeigt, etwa was gesendet werden soll. Auch sie wird verschlüsselt.',
  'request.messageTooLong': 'Die Nachricht ist zu lang.',
  'request.acceptsNote': 'Absender dürfen eine Notiz beifügen',
  'request.expiry': 'Offen für',
  'request.uploads': 'Anzahl der Uploads',
  'request.maxSize': 'Größter Upload',
  'request.downloads': 'Downloads pro Upload',
  'request.password': 'Posteingangspasswort (optional)',
  'request.passwordRequired': 'Posteingangspasswort (von diesem Server verlangt)',
  'request.passwordHint':
    'Zum Öffnen des Posteingangslinks braucht man zusätzlich dieses Passwort.',
  'request.passwordMissing': 'Dieser Server verlangt ein Passwort für den Posteingang.',
  'request.limit': 'Heute noch {count} von {limit} neuen Anfragen.',
  'request.limitReached':
    'Sie haben die {limit} Anfragen von heute aufgebraucht. Weitere sind ab {date} möglich.',
  'request.submit': 'Anfrage erstellen',
  'request.notify.title': 'Benachrichtigen, wenn eine Datei eintrifft (optional)',
  'request.notify.email': 'E-Mail-Adresse',
  'request.notify.webhook': 'Webhook-URL (https)',
  'request.notify.privacy':
    'Der Server erfährt diese Adresse oder URL, um die Benachrichtigung zu senden. Sie sagt nur, dass eine Datei eingetroffen ist, wann und ungefähr wie groß: nie einen Dateinamen oder einen Link.',
  'request.notify.secret': 'Signaturschlüssel des Webhooks (wird nur jetzt angezeigt)',
  'request.notify.secretHint':
    'Jeder Webhook trägt X-Fileshare-Signature: sha256= und das HMAC-SHA256 seines Inhalts unter diesem Schlüssel.',
  'request.creating': 'Wird erstellt …',
  'request.failed': 'Die Anfrage konnte nicht erstellt werden: {message}',

  'request.done.title': 'Ihre Dateianfrage ist bereit',
  'request.done.uploadLink': 'Upload-Link (für Absender)',
  'request.done.uploadHint':
    'Mit diesem Link können andere Ihnen Dateien senden. Was andere gesendet haben, sehen sie nicht.',
  'request.done.inboxLink': 'Posteingangslink (für Sie)',
  'request.done.inboxHint':
    'Jeder mit diesem Link kann lesen, herunterladen und löschen, was gesendet wurde. Halten Sie ihn geheim: Er lässt sich nicht wiederherstellen, speichern Sie ihn also jetzt.',
  'request.done.inboxHintPassword':
    'Jeder mit diesem Link und dem von Ihnen gewählten Passwort kann lesen, herunterladen und löschen, was gesendet wurde. Halten Sie ihn geheim: Er lässt sich nicht wiederherstellen, speichern Sie ihn also jetzt.',
  'request.done.uploads': { one: 'Nimmt {count} Upload an', other: 'Nimmt {count} Uploads an' },
  'request.done.uploadQr': 'QR-Code des Upload-Links',
  'request.done.closes': 'Nimmt Uploads an bis {date}',
  'request.done.openInbox': 'Posteingang öffnen',
  'request.done.another': 'Weitere Anfrage erstellen',
  'request.historyLabel': 'Dateianfrage: {message}',

  'request.send.title': 'Dateien senden',
  'request.send.checking': 'Anfrage wird geöffnet …',
  'request.send.intro':
    'Jemand hat Sie um Dateien gebeten. Sie werden verschlüsselt, bevor sie Ihren Browser verlassen; nur die anfragende Person kann sie öffnen.',
  'request.send.message': 'Nachricht der anfragenden Person',
  'request.send.noMessage': 'Die anfragende Person hat keine Nachricht hinterlassen.',
  'request.send.closes': 'Offen bis {date}',
  'request.send.left': { one: 'Noch {count} Upload', other: 'Noch {count} Uploads' },
  'request.send.maxSize': 'Bis zu {size} pro Upload',
  'request.send.note': 'Notiz (optional)',
  'request.send.noteHint': 'Wird zusammen mit Ihren Dateien verschlüsselt gesendet.',
  'request.send.noteTooLong': 'Die Notiz ist zu lang (höchstens {size}).',
  'request.send.noRoomForNote':
    'Es ist nur noch ein Upload übrig, daher können Dateien und Notiz nicht beide gesendet werden. Senden Sie eines davon.',
  'request.send.heldByUnfinished':
    'Diese Anfrage hat keinen Platz für einen weiteren Upload, solange Ihr unvollständiger Upload von {name} seinen Platz belegt. Setzen Sie ihn mit denselben Dateien fort oder beginnen Sie einen neuen Upload, der ihn beendet.',
  'request.send.empty': 'Fügen Sie zuerst Dateien hinzu.',
  'request.send.emptyOrNote': 'Fügen Sie zuerst Dateien hinzu oder schreiben Sie eine Notiz.',
  'request.send.tooLarge': 'Zusammen ist das größer als die {max}, die diese Anfrage annimmt.',
  'request.send.tooMany': 'Diese Anfrage nimmt höchstens {max} Dateien pro Upload an.',
  'request.send.submit': 'Senden',
  'request.send.sending': 'Wird verschlüsselt und gesendet …',
  'request.send.sendingNote': 'Notiz wird gesendet …',
  'request.send.cancelled': 'Das Senden wurde abgebrochen. Nichts wurde behalten.',
  'request.send.failed': 'Senden fehlgeschlagen: {message}',
  'request.send.done.title': 'Gesendet',
  'request.send.done.body':
    'Was Sie gesendet haben, wurde verschlüsselt und zugestellt. Nur die anfragende Person kann es öffnen.',
  'request.send.done.another': 'Mehr senden',
  'request.send.closed.title': 'Diese Anfrage ist geschlossen',
  'request.send.closed.body':
    'Die anfragende Person hat sie geschlossen oder sie ist abgelaufen, daher nimmt sie keine Dateien mehr an. Bitten Sie um einen neuen Link.',
  'request.send.full.title': 'Diese Anfrage ist voll',
  'request.send.full.body':
    'Sie hat alle Uploads erhalten, die sie annimmt. Bitten Sie die anfragende Person um einen neuen Link.',

  'inbox.title': 'Posteingang',
  'inbox.titleLocked': 'Passwort erforderlich',
  'inbox.checking': 'Posteingang wird geöffnet …',
  'inbox.lockedIntro': 'Dieser Posteingang ist mit einem Passwort geschützt.',
  'inbox.unlock': 'Entsperren',
  'inbox.unlocking': 'Passwort wird geprüft …',
  'inbox.message': 'Ihre Nachricht an die Absender',
  'inbox.noMessage': 'Keine Nachricht.',
  'inbox.open': 'Nimmt Uploads an bis {date}',
  'inbox.closed': 'Geschlossen: nimmt keine neuen Uploads an.',
  'inbox.expired': 'Abgelaufen am {date}: nimmt keine neuen Uploads an.',
  'inbox.used': {
    one: '{used} von {count} Upload genutzt',
    other: '{used} von {count} Uploads genutzt',
  },
  'inbox.uploadLink': 'Upload-Link (für Absender)',
  'inbox.listTitle': 'Empfangen',
  'inbox.empty': 'Bisher ist nichts angekommen.',
  'inbox.refresh': 'Aktualisieren',
  'inbox.downloadAll': 'Alle {count} in einen Ordner herunterladen',
  'inbox.downloadAllDone': {
    one: '{count} von {total} Dateien im Ordner gespeichert.',
    other: '{count} von {total} Dateien im Ordner gespeichert.',
  },
  'inbox.downloadAllFailed': 'Der Ordner konnte nicht geöffnet werden: {message}',
  'inbox.unreadable': {
    one: '{count} Upload konnte nicht entschlüsselt werden. Möglicherweise hat ein Absender beschädigte Daten gesendet.',
    other:
      '{count} Uploads konnten nicht entschlüsselt werden. Möglicherweise hat ein Absender beschädigte Daten gesendet.',
  },
  'inbox.entry.archiveSummary': {
    one: 'ZIP-Archiv mit {count} Datei, {size}',
    other: 'ZIP-Archiv mit {count} Dateien, {size}',
  },
  'inbox.entry.fileSummary': 'Eine Datei, {size}',
  'inbox.entry.archiveName': 'dateien-{date}.zip',
  'inbox.entry.files': { one: '{count} Datei', other: '{count} Dateien' },
  'inbox.entry.received': 'Empfangen am {date}',
  'inbox.entry.kept': 'Aufbewahrt bis {date}',
  'inbox.entry.left': { one: 'Noch {count} Download', other: 'Noch {count} Downloads' },
  'inbox.entry.download': '{name} herunterladen',
  'inbox.entry.downloading': '{name} wird heruntergeladen …',
  'inbox.entry.downloaded': '{name} wurde gespeichert.',
  'inbox.entry.downloadFailed': 'Herunterladen von {name} fehlgeschlagen: {message}',
  'inbox.entry.delete': '{name} löschen',
  'inbox.entry.deleteConfirm': '{name} endgültig löschen?',
  'inbox.entry.deleted': '{name} wurde gelöscht.',
  'inbox.entry.deleteFailed': 'Löschen von {name} fehlgeschlagen: {message}',
  'inbox.note.title': 'Notiz eines Absenders',
  'inbox.note.withFiles': 'Die Notiz des Absenders',
  'inbox.note.read': 'Notiz anzeigen',
  'inbox.entry.deleteWithNoteConfirm': '{name} und die dazugehörige Notiz endgültig löschen?',
  'inbox.note.reading': 'Notiz wird entschlüsselt …',
  'inbox.note.copy': 'Notiz kopieren',
  'inbox.confirmYes': 'Ja, löschen',
  'inbox.close': 'Anfrage schließen',
  'inbox.closeConfirm':
    'Die Anfrage schließen? Absender können dann nichts mehr hochladen; was angekommen ist, bleibt.',
  'inbox.closeYes': 'Ja, schließen',
  'inbox.closedDone': 'Die Anfrage ist geschlossen.',
  'inbox.closeFailed': 'Schließen fehlgeschlagen: {message}',
  'inbox.delete': 'Anfrage löschen',
  'inbox.deleteConfirm': 'Die Anfrage und alles darin endgültig löschen?',
  'inbox.deleted': 'Die Anfrage und alles darin wurden gelöscht.',
  'inbox.deleteFailed': 'Löschen fehlgeschlagen: {message}',
  'inbox.manage': 'Anfrage verwalten',
  'tokens.title': 'API-Tokens',
  'tokens.nav': 'API-Tokens',
  'tokens.intro':
    'Skripte und die Kommandozeile können mit einem persönlichen API-Token erstellen, ohne sich anzumelden. Ein Token darf erstellen, was Sie ihm erlauben, bis es abläuft oder Sie es widerrufen.',
  'tokens.signIn': 'Melden Sie sich an, um Ihre API-Tokens zu verwalten.',
  'tokens.unavailable':
    'Auf diesem Server muss sich zum Erstellen niemand anmelden, daher gibt es keine API-Tokens.',
  'tokens.form.title': 'Neues Token',
  'tokens.form.name': 'Name',
  'tokens.form.nameHint': 'Wofür das Token ist, etwa „nächtliche Sicherung“.',
  'tokens.form.scopes': 'Darf erstellen',
  'tokens.form.expiry': 'Läuft ab nach',
  'tokens.form.create': 'Token erstellen',
  'tokens.form.creating': 'Wird erstellt …',
  'tokens.form.nameMissing': 'Geben Sie dem Token einen Namen mit höchstens 100 Zeichen.',
  'tokens.form.scopesMissing': 'Wählen Sie mindestens eine Sache, die das Token erstellen darf.',
  'tokens.scope.files': 'Dateien',
  'tokens.scope.notes': 'Notizen',
  'tokens.scope.requests': 'Dateianfragen',
  'tokens.created.title': 'Ihr neues Token',
  'tokens.created.label': 'Token',
  'tokens.created.warning':
    'Kopieren Sie es jetzt: Es wird nicht noch einmal angezeigt. Wer es hat, kann in Ihrem Namen erstellen, bis es abläuft oder Sie es widerrufen.',
  'tokens.created.cli':
    'Auf der Kommandozeile: „fileshare login --token -“ ausführen und das Token einfügen, oder FILESHARE_TOKEN setzen.',
  'tokens.created.done': 'Fertig',
  'tokens.list.title': 'Ihre Tokens',
  'tokens.list.empty': 'Sie haben keine API-Tokens.',
  'tokens.list.scopes': 'Darf erstellen',
  'tokens.list.created': 'Erstellt',
  'tokens.list.lastUsed': 'Zuletzt benutzt',
  'tokens.list.expires': 'Läuft ab',
  'tokens.list.never': 'Nie',
  'tokens.revoke': 'Widerrufen',
  'tokens.revoking': 'Wird widerrufen …',
  'tokens.revokeLabel': '{name} widerrufen',

  'about.title': 'Über diesen Dienst',
  'about.intro':
    '{site} sendet Dateien, Notizen und Dateianfragen Ende-zu-Ende-verschlüsselt: Ihr Browser verschlüsselt sie, bevor sie ihn verlassen, und nur Personen mit dem Link können sie entschlüsseln.',
  'about.howTitle': 'So funktioniert es',
  'about.how':
    'Jeder Link trägt seinen Schlüssel nach dem Zeichen #. Browser senden diesen Teil nie an einen Server, daher bleibt der Schlüssel bei Ihnen und den Personen, denen Sie den Link geben. Ein Passwort, wenn Sie eines festlegen, wird zusätzlich zum Link benötigt.',
  'about.operatorTitle': 'Was der Betreiber dieses Servers sehen kann und was nicht',
  'about.operatorCannot':
    'Der Betreiber kann weder Ihre Dateien noch deren Namen, Ihre Notizen oder die Nachrichten von Dateianfragen lesen: Der Server speichert sie nur verschlüsselt, ohne den Schlüssel.',
  'about.operatorCan':
    'Der Betreiber kann sehen, wie groß jeder Upload ist, wann er erstellt und heruntergeladen wurde, wie viele Dateien er enthält und von welcher Netzwerkadresse er kam; auf einem Server mit Anmeldung auch, wer ihn erstellt hat.',
  'about.limitsTitle': 'Grenzen',
  'about.limits':
    'Uploads und Notizen werden gelöscht, wenn sie ablaufen oder ihr Download- bzw. Aufruflimit ausgeschöpft ist. Ein verlorener Link lässt sich nicht wiederherstellen: Niemand, nicht einmal der Betreiber, kann öffnen, worauf er verwies.',
  'about.docsTitle': 'Dokumentation',
  'about.docs':
    'Die Verschlüsselung, die API und die Servereinstellungen sind in der Dokumentation beschrieben, die mit fileshare ausgeliefert wird: docs/crypto.md, docs/api.md und docs/configuration.md. Der Kommandozeilen-Client erklärt sich selbst mit fileshare --help.',
  'about.operatorTitleLinks': 'Betreiber',
  'about.imprint': 'Impressum',
  'about.privacy': 'Datenschutzerklärung',
  'about.footerLink': 'Über diesen Dienst',
  'error.removed.title': 'Vom Betreiber entfernt',
  'error.removed.body': 'Der Betreiber dieses Dienstes hat entfernt, worauf dieser Link verwies.',
  'error.removed.reason': 'Begründung des Betreibers: {reason}',
  'report.link': 'Melden',
  'report.title': 'Dem Betreiber melden',
  'report.intro':
    'Teilen Sie dem Betreiber dieses Dienstes mit, was mit diesem Inhalt nicht stimmt, etwa dass er rechtswidrig oder missbräuchlich ist.',
  'report.reason': 'Grund',
  'report.includeKey': 'Schlüssel dieses Links mitsenden',
  'report.keyNote':
    'Ohne den Schlüssel kann der Betreiber den Inhalt nicht sehen: Er ist verschlüsselt, und nur dieser Link öffnet ihn.',
  'report.send': 'Meldung senden',
  'report.sending': 'Meldung wird gesendet …',
  'report.sent': 'Vielen Dank. Ihre Meldung wurde an den Betreiber gesendet.',
  'report.failed': 'Die Meldung konnte nicht gesendet werden. {message}',

  'archive.title': 'Im Archiv',
  'archive.intro':
    'Sehen Sie, welche Dateien dieses Archiv enthält, und zeigen Sie einzelne Dateien an oder speichern Sie sie, ohne alles herunterzuladen.',
  'archive.counts':
    'Das Öffnen des Archivs zählt als ein Download; das Anzeigen und Speichern seiner Dateien danach zählt einige Stunden lang nicht erneut.',
  'archive.open': 'Archiv öffnen',
  'archive.openLast': 'Archiv öffnen (verbraucht den letzten Download)',
  'archive.openAgain': 'Archiv erneut öffnen',
  'archive.opening': 'Die Dateiliste wird gelesen …',
  'archive.failed': 'Das Archiv konnte nicht gelesen werden. {message}',
  'archive.until':
    'Bis {date} können Sie Dateien daraus anzeigen und speichern, ohne dass ein weiterer Download gezählt wird.',
  'archive.lapsed':
    'Die Zeit zum Anzeigen und Speichern einzelner Dateien aus diesem Archiv ist abgelaufen. Erneutes Öffnen zählt einen weiteren Download.',
  'archive.listLabel': 'Dateien im Archiv',
  'archive.view': 'Anzeigen',
  'archive.viewNamed': '{name} anzeigen',
  'archive.save': 'Speichern',
  'archive.saveNamed': '{name} speichern',
  'archive.fetching': 'Die Datei wird geladen …',
  'archive.saved': '{name} gespeichert.',
  'archive.saveCancelled': 'Das Speichern von {name} wurde abgebrochen.',
  'archive.entryFailed': '{name} konnte nicht gelesen werden. {message}',
  'archive.unsupported': 'Hier nicht lesbar',
} satisfies Translation<'one' | 'other'>

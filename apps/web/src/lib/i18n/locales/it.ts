/**
 * Italian (italiano). Informal address (tu), as most Italian web apps use.
 *
 * Glossary: link = link; share link = link di condivisione; upload (noun) = caricamento, to
 * upload = caricare; download = download, to download = scaricare; inbox = posta in arrivo;
 * inbox link = link della posta in arrivo; upload link = link di caricamento; file request =
 * richiesta di file; note = nota; password = password; expiry = scadenza («Scade il»); view =
 * visualizzazione; sender = mittente; requester = richiedente; key = chiave; encrypted =
 * cifrato; upload allowance = quota di caricamento; to delete = eliminare; to forget =
 * dimenticare;
 * operator = gestore; imprint = note legali; privacy statement = informativa sulla privacy.
 */
import type { Translation } from '../messages'

export default {
  'app.name': 'fileshare',
  'app.tagline': 'File, note e richieste di file, cifrati nel tuo browser prima che lo lascino.',
  'app.logoAlt': 'Logo di {title}',
  'app.footer': 'Cifratura end-to-end: la chiave resta nel link e non raggiunge mai il server.',
  'app.skipToContent': 'Vai al contenuto',
  'app.documentTitle': '{page} · {site}',
  'app.loading': 'Caricamento…',
  'app.leaveBusy':
    'Uscendo ora interromperesti o perderesti ciò che è in corso su questa pagina. Uscire comunque?',
  'app.loadFailed': 'Impossibile caricare questa pagina. Controlla la connessione e ricarica.',
  'app.language': 'Lingua',
  'app.configFailed': 'Il server non è raggiungibile. Controlla la connessione e ricarica.',

  'nav.label': 'Principale',
  'nav.menu': 'Menu',
  'nav.upload': 'Invia file',
  'nav.note': 'Nota',
  'nav.request': 'Richiedi file',
  'nav.history': 'I miei caricamenti',

  'action.copy': 'Copia',
  'action.copied': 'Copiato',
  'action.copyFailed': 'Copia non riuscita; seleziona il testo e copialo tu.',
  'action.share': 'Condividi',
  'action.copyNamed': 'Copia: {label}',
  'action.shareNamed': 'Condividi: {label}',
  'action.shareCopied': 'Qui la condivisione non è disponibile, quindi il link è stato copiato.',
  'action.cancel': 'Annulla',
  'action.delete': 'Elimina',
  'action.retry': 'Riprova',
  'action.close': 'Chiudi',
  'action.showPassword': 'Mostra password',
  'action.hidePassword': 'Nascondi password',

  'field.password': 'Password',
  'field.passwordOptional': 'Password (facoltativa)',
  'field.passwordHint': 'Chi apre il link avrà bisogno anche di questa password.',

  'option.downloads': {
    one: '{count} download',
    many: '{count} di download',
    other: '{count} download',
  },
  'option.views': {
    one: '{count} visualizzazione',
    many: '{count} di visualizzazioni',
    other: '{count} visualizzazioni',
  },
  'option.uploads': {
    one: '{count} caricamento',
    many: '{count} di caricamenti',
    other: '{count} caricamenti',
  },

  'progress.label': 'Avanzamento',
  'progress.bytes': '{sent} di {total}',
  'progress.speed': '{rate}/s',
  'progress.eta': '{time} rimanenti',
  'progress.etaUnknown': 'stima del tempo rimanente…',
  'progress.transport.websocket': 'WebSocket',
  'progress.transport.http': 'HTTP',
  'progress.via': 'Metodo di trasferimento: {transport}',
  'progress.preparing': 'Preparazione…',

  'qr.alt': 'Codice QR del link',

  'time.expiresAt': 'Scade il {date}',
  'time.expired': 'Scaduto',

  'error.title': 'Qualcosa è andato storto',
  'error.notFound.title': 'Non trovato',
  'error.notFound.body':
    'Non c’è nulla salvato con questo link. Potrebbe essere stato eliminato, oppure il link non è stato copiato per intero (compresa la parte dopo #).',
  'error.gone.title': 'Non più disponibile',
  'error.gone.body': 'Questo link è scaduto o il suo limite di download è stato raggiunto.',
  'error.gone.expired': 'Questo link è scaduto.',
  'error.gone.usedUp': 'Questo link è stato aperto tutte le volte consentite e non funziona più.',
  'error.sendNew': 'Invia qualcosa di nuovo',
  'error.badLink.title': 'Link non valido',
  'error.badLink.body':
    'Questo link è incompleto o danneggiato. Richiedilo e copialo per intero, compresa la parte dopo #.',
  'error.wrongKey.title': 'La chiave del link non corrisponde',
  'error.wrongKey.body':
    'La chiave del link non apre questo contenuto. Controlla di aver copiato il link per intero, compresa la parte dopo #.',
  'error.wrongKey.file':
    'La chiave del link non apre questo file. Controlla di aver copiato il link per intero, compresa la parte dopo #.',
  'error.wrongKey.note':
    'La chiave del link non apre questa nota. Controlla di aver copiato il link per intero, compresa la parte dopo #.',
  'error.ownerTokenRefused':
    'Il server non ha accettato il diritto di questo browser di modificarlo. Potrebbe appartenere a un link inviato da altrove.',
  'error.locked.title': 'Troppe password errate',
  'error.locked.body': 'Riprova tra {time}.',
  'error.locked.bodyLater': 'Riprova più tardi.',
  'error.locked.message': 'Troppe password errate. Riprova tra {time}.',
  'error.locked.messageLater': 'Troppe password errate. Riprova più tardi.',
  'error.wrongPassword': 'Password errata. Riprova.',
  'error.network': 'Il server non è raggiungibile. Controlla la connessione e riprova.',
  'error.disabled': 'Questa funzione è disattivata su questo server.',
  'error.tooLarge': 'Supera quanto accetta il server.',
  'error.rateLimited': 'Troppe richieste. Attendi un momento e riprova.',
  'error.quotaExceeded':
    'Supera ciò che resta della tua quota di caricamento su questo server. Prova un caricamento più piccolo o attendi il rinnovo della quota.',
  'error.quotaExhausted':
    'La tua quota di caricamento su questo server è esaurita. Si rinnova tra {time}.',
  'error.quotaExhaustedLater':
    'La tua quota di caricamento su questo server è esaurita. Riprova più tardi.',
  'quota.left':
    'La tua quota di caricamento su questo server: restano {left} di {limit}. Si rinnova tra {time}.',
  'quota.over':
    'Supera i {left} che restano della tua quota di caricamento su questo server. Si rinnova tra {time}.',
  'error.loginRequired': 'Per questo devi accedere.',
  'error.generic': 'Qualcosa è andato storto: {message}',
  'error.integrity':
    'I dati non hanno superato il controllo di integrità: sono danneggiati o sono stati manomessi. Non fidarti di nulla del loro contenuto.',

  'notFound.title': 'Pagina non trovata',
  'notFound.body': 'A questo indirizzo non c’è nessuna pagina.',
  'notFound.home': 'Vai alla pagina iniziale',

  'upload.title': 'Invia file',
  'upload.intro': 'I file vengono cifrati nel tuo browser. Solo chi ha il link può aprirli.',
  'upload.drop': 'Trascina qui file o cartelle',
  'upload.dropActive': 'Rilascia per aggiungere',
  'upload.chooseFiles': 'Scegli file',
  'upload.chooseFolder': 'Scegli cartella',
  'upload.reading': 'Lettura della cartella…',
  'upload.paste': 'Puoi anche incollare file o uno screenshot.',
  'upload.listLabel': 'File selezionati',
  'upload.folderItem': '{name} (cartella)',
  'upload.remove': 'Rimuovi {name}',
  'upload.total': {
    one: '{count} elemento, {size}',
    many: '{count} di elementi, {size}',
    other: '{count} elementi, {size}',
  },
  'upload.zipped': 'Più file o una cartella vengono inviati come un unico archivio ZIP.',
  'upload.tooLarge': 'Insieme superano i {max} accettati da questo server.',
  'upload.tooMany': 'Questo server accetta al massimo {max} file per caricamento.',
  'upload.empty': 'Aggiungi almeno un file.',
  'upload.expiry': 'Scade dopo',
  'upload.downloads': 'Limite di download',
  'upload.submit': 'Carica',
  'upload.preparing': 'Cifratura…',
  'upload.uploading': 'Caricamento…',
  'upload.cancelled': 'Caricamento annullato.',
  'upload.failed': 'Caricamento non riuscito: {message}',
  'upload.resuming': 'Connessione persa, ripresa in corso…',
  'upload.resumedAt': 'Ripreso da {size}.',
  'upload.unfinished':
    'Un caricamento di {name} non è stato completato. Scegli di nuovo gli stessi file per continuarlo.',
  'upload.resume': 'Riprendi il caricamento',
  'upload.discard': 'Inizia un nuovo caricamento',
  'upload.resumeMismatch':
    'Questi non sono i file del caricamento incompleto: un nome, una dimensione o una data di modifica è diversa. Scegli gli stessi file o inizia un nuovo caricamento.',
  'upload.resumeGone':
    'Il server non ha più il caricamento incompleto, quindi non può continuare. Inizia un nuovo caricamento.',
  'upload.done.title': 'I tuoi file sono pronti da condividere',
  'upload.done.link': 'Link di condivisione',
  'upload.done.expires': 'Scade il {date}',
  'upload.done.downloads': {
    one: '{count} download rimanente',
    many: '{count} di download rimanenti',
    other: '{count} download rimanenti',
  },
  'upload.done.keepSafe':
    'Chiunque abbia questo link può scaricare i file. Il link non può essere recuperato.',
  'upload.done.keepSafePassword':
    'Chiunque abbia questo link e la password può scaricare i file. Invia la password per un canale diverso dal link (per esempio per telefono o con un’altra app di messaggistica). Il link non può essere recuperato.',
  'upload.done.delete': 'Elimina caricamento',
  'upload.done.confirmDelete':
    'Eliminare ora questo caricamento? Il link smetterà di funzionare per tutti.',
  'upload.done.deleting': 'Eliminazione…',
  'upload.done.deleted': 'Il caricamento è stato eliminato.',
  'upload.done.deleteFailed': 'Eliminazione non riuscita: {message}',
  'upload.done.another': 'Invia altro',

  'download.title': 'Download',
  'download.titleLocked': 'Password richiesta',
  'download.checking': 'Verifica del link…',
  'download.lockedIntro': 'Questi file sono protetti da una password.',
  'download.unlock': 'Sblocca',
  'download.unlocking': 'Verifica della password…',
  'download.filesLabel': 'File',
  'download.archive': 'Questi file arrivano come un unico archivio ZIP.',
  'download.total': {
    one: '{count} file, {size}',
    many: '{count} di file, {size}',
    other: '{count} file, {size}',
  },
  'download.expires': 'Scade il {date}',
  'download.left': {
    one: '{count} download rimanente',
    many: '{count} di download rimanenti',
    other: '{count} download rimanenti',
  },
  'download.counts': 'Lo scaricamento conta per il limite.',
  'download.lastDone': 'Quello era l’ultimo download; questo link non funziona più.',
  'download.button': 'Scarica',
  'download.downloading': 'Scaricamento e decifratura…',
  'download.done': 'Download completato.',
  'download.cancelled': 'Download annullato.',
  'download.failed': 'Download non riuscito: {message}',
  'download.noMetadata': 'I nomi dei file non sono disponibili.',
  'download.unnamed': 'download',
  'download.archiveName': 'file.zip',
  'download.blobWarning':
    'Questo browser non può salvare direttamente su disco, quindi il file viene prima assemblato in memoria. I file oltre {limit} non si possono scaricare qui; usa una versione recente di Chrome, Edge o Firefox.',
  'download.blobTooLarge':
    'Questo file è troppo grande per essere scaricato in questo browser ({size}, limite {limit}). Usa una versione recente di Chrome, Edge o Firefox.',

  'history.title': 'I miei caricamenti',
  'history.intro':
    'Tutto ciò che è stato inviato da questo browser. L’elenco resta su questo dispositivo; dimenticare un elemento non lo elimina dal server.',
  'history.empty': 'Da questo browser non è ancora stato inviato nulla.',
  'history.kind.file': 'File',
  'history.kind.note': 'Nota',
  'history.kind.request': 'Richiesta di file',
  'history.link': 'Link',
  'history.refreshing': 'Aggiornamento…',
  'history.gone': 'Non più disponibile',
  'history.status.unknown': 'Stato sconosciuto · Scade il {date}',
  'history.status.file': {
    one: '{count} download rimanente · Scade il {date}',
    many: '{count} di download rimanenti · Scade il {date}',
    other: '{count} download rimanenti · Scade il {date}',
  },
  'history.status.note': {
    one: '{count} visualizzazione rimanente · Scade il {date}',
    many: '{count} di visualizzazioni rimanenti · Scade il {date}',
    other: '{count} visualizzazioni rimanenti · Scade il {date}',
  },
  'history.status.request': {
    one: '{count} caricamento rimanente · Scade il {date}',
    many: '{count} di caricamenti rimanenti · Scade il {date}',
    other: '{count} caricamenti rimanenti · Scade il {date}',
  },
  'history.status.requestClosed': {
    one: '{count} caricamento rimanente · Scade il {date} · Chiusa a nuovi caricamenti',
    many: '{count} di caricamenti rimanenti · Scade il {date} · Chiusa a nuovi caricamenti',
    other: '{count} caricamenti rimanenti · Scade il {date} · Chiusa a nuovi caricamenti',
  },
  'history.created': 'Inviato il {date}',
  'history.delete': 'Elimina {name}',
  'history.forget': 'Dimentica {name}',
  'history.forgetButton': 'Dimentica',
  'history.forgetConfirm':
    'Dimenticare «{name}»? Questo browser non avrà più il suo link né il diritto di eliminarlo. Il caricamento resta comunque sul server fino alla scadenza.',
  'history.forgetGoneConfirm': 'Rimuovere «{name}» da questo elenco?',
  'history.deleteConfirm': 'Eliminare «{name}» dal server? L’operazione non può essere annullata.',
  'history.deleted': '«{name}» è stato eliminato.',
  'history.deleteFailed': 'Eliminazione non riuscita: {message}',
  'history.noteLabel': 'Nota ({type})',
  'history.requestLabel': 'Richiesta di file',
  'history.unavailable':
    'Questo browser non può conservare una cronologia (l’archiviazione è bloccata).',

  'login.signIn': 'Accedi',
  'login.signOut': 'Esci',
  'login.signedInAs': 'Accesso eseguito come {name}',
  'login.gate.title': 'Accedi per continuare',
  'login.gate.files':
    'Su questo server solo gli utenti che hanno effettuato l’accesso possono inviare file.',
  'login.gate.notes':
    'Su questo server solo gli utenti che hanno effettuato l’accesso possono creare note.',
  'login.gate.requests':
    'Su questo server solo gli utenti che hanno effettuato l’accesso possono creare richieste di file.',

  'note.new.title': 'Scrivi una nota',
  'note.new.intro':
    'Le note vengono cifrate nel tuo browser. Il link apre la nota un numero limitato di volte, poi sparisce.',
  'note.type.label': 'Tipo di nota',
  'note.type.text': 'Testo',
  'note.type.markdown': 'Markdown',
  'note.type.code': 'Codice',
  'note.type.password': 'Password',
  'note.type.sshkey': 'Chiave SSH',

  'note.text.label': 'Nota',
  'note.markdown.label': 'Markdown',
  'note.markdown.preview': 'Anteprima',
  'note.markdown.previewEmpty': 'L’anteprima compare qui mentre scrivi.',
  'note.markdown.rules':
    'L’HTML viene mostrato come testo, le immagini diventano link e funzionano solo i link web e di posta.',
  'note.code.label': 'Codice',
  'note.code.language': 'Evidenzia come',
  'note.code.auto': 'Rileva automaticamente',
  'note.code.plain': 'Testo semplice',
  'note.code.detected': 'Rilevato: {language}',
  'note.code.preview': 'Anteprima',
  'note.code.languageHint':
    'Il linguaggio non viene salvato con la nota; chi legge lo vede rilevato.',

  'note.pw.listLabel': 'Voci delle password',
  'note.pw.entry': 'Voce {n}',
  'note.pw.label': 'Etichetta',
  'note.pw.username': 'Nome utente',
  'note.pw.password': 'Password',
  'note.pw.url': 'Indirizzo',
  'note.pw.add': 'Aggiungi voce',
  'note.pw.remove': 'Rimuovi la voce {n}',
  'note.pw.generate': 'Genera una password per la voce {n}',
  'note.pw.generateShort': 'Genera password',
  'note.pw.removeShort': 'Rimuovi',
  'note.pw.empty': 'Aggiungi almeno una password.',
  'note.gen.title': 'Generatore di password',
  'note.gen.length': 'Lunghezza',
  'note.gen.lower': 'Lettere minuscole (a–z)',
  'note.gen.upper': 'Lettere maiuscole (A–Z)',
  'note.gen.digits': 'Cifre (0–9)',
  'note.gen.symbols': 'Simboli (!#$…)',
  'note.gen.noClass': 'Scegli almeno un tipo di carattere.',

  'note.ssh.generate': 'Genera coppia di chiavi Ed25519',
  'note.ssh.generating': 'Generazione…',
  'note.ssh.comment': 'Commento della chiave (facoltativo)',
  'note.ssh.commentHint': 'Spesso utente@host; finisce dopo la chiave pubblica.',
  'note.ssh.generated':
    'Nel tuo browser è stata creata una nuova coppia di chiavi. Aggiungi la chiave pubblica dove accedi; la nota contiene entrambe le chiavi.',
  'note.ssh.savePrivateKey': 'Salva la chiave privata come file',
  'note.ssh.unsupported':
    'Questo browser non può generare chiavi Ed25519. Incolla invece una chiave.',
  'note.ssh.label': 'Chiavi SSH',
  'note.ssh.hint':
    'Genera una coppia qui sopra, oppure incolla una chiave privata, una chiave pubblica o entrambe.',
  'note.ssh.publicKey': 'Chiave pubblica',
  'note.ssh.privateKey': 'Chiave privata',
  'note.ssh.otherText': 'Altro testo',
  'note.ssh.fingerprint': 'Impronta {fingerprint}',

  'note.views': 'Limite di visualizzazioni',
  'note.expiry': 'Scade dopo',
  'note.size': '{used} di {max}',
  'note.sizeLimit': 'Fino a {max}',
  'note.tooLarge': 'La nota supera i {max} accettati da questo server.',
  'note.empty': 'Scrivi prima qualcosa.',
  'note.submit': 'Crea nota',
  'note.creating': 'Cifratura…',
  'note.failed': 'Impossibile creare la nota: {message}',

  'note.done.title': 'La tua nota è pronta da condividere',
  'note.done.link': 'Link della nota',
  'note.done.views': {
    one: 'Si può aprire {count} volta',
    many: 'Si può aprire {count} di volte',
    other: 'Si può aprire {count} volte',
  },
  'note.done.expires': 'Scade il {date}',
  'note.done.keepSafe':
    'Chiunque abbia questo link può leggere la nota. Il link non può essere recuperato.',
  'note.done.keepSafePassword':
    'Chiunque abbia questo link e la password può leggere la nota. Invia la password per un canale diverso dal link (per esempio per telefono o con un’altra app di messaggistica). Il link non può essere recuperato.',
  'note.done.delete': 'Elimina nota',
  'note.done.confirmDelete': 'Eliminare ora questa nota? Il link smetterà di funzionare per tutti.',
  'note.done.deleting': 'Eliminazione…',
  'note.done.deleted': 'La nota è stata eliminata.',
  'note.done.deleteFailed': 'Eliminazione non riuscita: {message}',
  'note.done.another': 'Scrivi un’altra nota',

  'note.view.title': 'Nota',
  'note.view.titleLocked': 'Password richiesta',
  'note.view.checking': 'Verifica del link…',
  'note.view.lockedIntro': 'Questa nota è protetta da una password.',
  'note.view.unlock': 'Sblocca',
  'note.view.unlocking': 'Verifica della password…',
  'note.view.unlockNoView': 'La verifica della password non consuma visualizzazioni.',
  'note.view.kind': 'Tipo: {type}',
  'note.view.viewsLeft': {
    one: '{count} visualizzazione rimanente',
    many: '{count} di visualizzazioni rimanenti',
    other: '{count} visualizzazioni rimanenti',
  },
  'note.view.expires': 'Scade il {date}',
  'note.view.consumeWarning':
    'Aprire la nota consuma una delle sue visualizzazioni. Dopo l’ultima, la nota sparisce per sempre.',
  'note.view.reveal': {
    one: 'Mostra (consuma l’ultima visualizzazione)',
    many: 'Mostra (consuma 1 di {count} di visualizzazioni)',
    other: 'Mostra (consuma 1 di {count} visualizzazioni)',
  },
  'note.view.revealing': 'Apertura…',
  'note.view.lastView':
    'Era l’ultima visualizzazione: la nota è stata eliminata dal server. Copia ciò che ti serve prima di lasciare questa pagina.',
  'note.view.copyAll': 'Copia tutta la nota',
  'note.view.copyUsername': 'Copia il nome utente di {name}',
  'note.view.copyPassword': 'Copia la password di {name}',
  'note.view.copyPublicKey': 'Copia la chiave pubblica {n}',
  'note.view.copyPrivateKey': 'Copia la chiave privata {n}',
  'note.view.showPassword': 'Mostra la password di {name}',
  'note.view.hidePassword': 'Nascondi la password di {name}',
  'note.view.hidden': '••••••••',
  'note.view.entries': 'Password',
  'note.view.noEntries': 'Questo elenco di password è vuoto.',

  'request.new.title': 'Richiedi file',
  'request.new.intro':
    'Chiedi ad altre persone di inviarti file. Vengono cifrati nel browser del mittente e solo il tuo link della posta in arrivo li apre.',
  'request.message': 'Messaggio ai mittenti',
  'request.messageHint':
    'Mostrato nella pagina di caricamento, per esempio cosa inviare. Anche questo è cifrato.',
  'request.messageTooLong': 'Il messaggio è troppo lungo.',
  'request.acceptsNote': 'I mittenti possono aggiungere una nota',
  'request.expiry': 'Aperta per',
  'request.uploads': 'Numero di caricamenti',
  'request.maxSize': 'Caricamento massimo',
  'request.downloads': 'Download per caricamento',
  'request.password': 'Password della posta in arrivo (facoltativa)',
  'request.passwordRequired': 'Password della posta in arrivo (richiesta da questo server)',
  'request.passwordHint': 'Per aprire il link della posta in arrivo servirà anche questa password.',
  'request.passwordMissing': 'Questo server richiede una password per la posta in arrivo.',
  'request.limit': 'Oggi restano {count} nuove richieste su {limit}.',
  'request.limitReached':
    'Hai usato le {limit} richieste di oggi. Potrai crearne altre dal {date}.',
  'request.submit': 'Crea richiesta',
  'request.creating': 'Creazione…',
  'request.failed': 'Impossibile creare la richiesta: {message}',

  'request.done.title': 'La tua richiesta di file è pronta',
  'request.done.uploadLink': 'Link di caricamento (per i mittenti)',
  'request.done.uploadHint':
    'Con questo link le persone possono inviarti file. Non vedono cosa hanno inviato gli altri.',
  'request.done.inboxLink': 'Link della posta in arrivo (il tuo)',
  'request.done.inboxHint':
    'Chiunque abbia questo link può leggere, scaricare ed eliminare ciò che è stato inviato. Tienilo riservato: non può essere recuperato, quindi salvalo ora.',
  'request.done.inboxHintPassword':
    'Chiunque abbia questo link e la password che hai scelto può leggere, scaricare ed eliminare ciò che è stato inviato. Tienilo riservato: non può essere recuperato, quindi salvalo ora.',
  'request.done.uploads': {
    one: 'Accetta {count} caricamento',
    many: 'Accetta {count} di caricamenti',
    other: 'Accetta {count} caricamenti',
  },
  'request.done.uploadQr': 'Codice QR del link di caricamento',
  'request.done.closes': 'Accetta caricamenti fino al {date}',
  'request.done.openInbox': 'Apri la posta in arrivo',
  'request.done.another': 'Crea un’altra richiesta',
  'request.historyLabel': 'Richiesta di file: {message}',

  'request.send.title': 'Invia file',
  'request.send.checking': 'Apertura della richiesta…',
  'request.send.intro':
    'Qualcuno ti ha chiesto dei file. Vengono cifrati prima di lasciare il tuo browser; solo il richiedente può aprirli.',
  'request.send.message': 'Messaggio del richiedente',
  'request.send.noMessage': 'Il richiedente non ha lasciato alcun messaggio.',
  'request.send.closes': 'Aperta fino al {date}',
  'request.send.left': {
    one: '{count} caricamento rimanente',
    many: '{count} di caricamenti rimanenti',
    other: '{count} caricamenti rimanenti',
  },
  'request.send.maxSize': 'Fino a {size} per caricamento',
  'request.send.note': 'Nota (facoltativa)',
  'request.send.noteHint': 'Inviata cifrata insieme ai tuoi file.',
  'request.send.noteTooLong': 'La nota è troppo lunga (al massimo {size}).',
  'request.send.noRoomForNote':
    'Resta un solo caricamento, quindi non si possono inviare sia file sia una nota. Invia uno dei due.',
  'request.send.empty': 'Aggiungi prima dei file.',
  'request.send.emptyOrNote': 'Aggiungi prima dei file o scrivi una nota.',
  'request.send.tooLarge': 'Insieme superano i {max} accettati da questa richiesta.',
  'request.send.tooMany': 'Questa richiesta accetta al massimo {max} file per caricamento.',
  'request.send.submit': 'Invia',
  'request.send.sending': 'Cifratura e invio…',
  'request.send.sendingNote': 'Invio della nota…',
  'request.send.cancelled': 'Invio annullato. Non è stato conservato nulla.',
  'request.send.failed': 'Invio non riuscito: {message}',
  'request.send.done.title': 'Inviato',
  'request.send.done.body':
    'Ciò che hai inviato è stato cifrato e consegnato. Solo il richiedente può aprirlo.',
  'request.send.done.another': 'Invia altro',
  'request.send.closed.title': 'Questa richiesta è chiusa',
  'request.send.closed.body':
    'Il richiedente l’ha chiusa oppure è scaduta, quindi non accetta più file. Chiedigli un nuovo link.',
  'request.send.full.title': 'Questa richiesta è al completo',
  'request.send.full.body':
    'Ha ricevuto tutti i caricamenti che accetta. Chiedi un nuovo link al richiedente.',

  'inbox.title': 'Posta in arrivo',
  'inbox.titleLocked': 'Password richiesta',
  'inbox.checking': 'Apertura della posta in arrivo…',
  'inbox.lockedIntro': 'Questa posta in arrivo è protetta da una password.',
  'inbox.unlock': 'Sblocca',
  'inbox.unlocking': 'Verifica della password…',
  'inbox.message': 'Il tuo messaggio ai mittenti',
  'inbox.noMessage': 'Nessun messaggio.',
  'inbox.open': 'Accetta caricamenti fino al {date}',
  'inbox.closed': 'Chiusa: non accetta nuovi caricamenti.',
  'inbox.expired': 'Scaduta il {date}: non accetta nuovi caricamenti.',
  'inbox.used': {
    one: 'Caricamenti usati: {used} su {count}',
    many: 'Caricamenti usati: {used} su {count}',
    other: 'Caricamenti usati: {used} su {count}',
  },
  'inbox.uploadLink': 'Link di caricamento (per i mittenti)',
  'inbox.listTitle': 'Ricevuti',
  'inbox.empty': 'Non è ancora arrivato nulla.',
  'inbox.refresh': 'Aggiorna',
  'inbox.downloadAll': 'Scarica tutti i {count} in una cartella',
  'inbox.downloadAllDone': {
    one: '{count} file su {total} salvato nella cartella.',
    many: '{count} di file su {total} salvati nella cartella.',
    other: '{count} file su {total} salvati nella cartella.',
  },
  'inbox.downloadAllFailed': 'Impossibile aprire la cartella: {message}',
  'inbox.unreadable': {
    one: '{count} caricamento non è stato decifrato. Un mittente potrebbe aver inviato dati danneggiati.',
    many: '{count} di caricamenti non sono stati decifrati. Un mittente potrebbe aver inviato dati danneggiati.',
    other:
      '{count} caricamenti non sono stati decifrati. Un mittente potrebbe aver inviato dati danneggiati.',
  },
  'inbox.entry.archiveSummary': {
    one: 'Archivio ZIP di {count} file, {size}',
    many: 'Archivio ZIP di {count} di file, {size}',
    other: 'Archivio ZIP di {count} file, {size}',
  },
  'inbox.entry.fileSummary': 'Un file, {size}',
  'inbox.entry.archiveName': 'file-{date}.zip',
  'inbox.entry.files': { one: '{count} file', many: '{count} di file', other: '{count} file' },
  'inbox.entry.received': 'Ricevuto il {date}',
  'inbox.entry.kept': 'Conservato fino al {date}',
  'inbox.entry.left': {
    one: '{count} download rimanente',
    many: '{count} di download rimanenti',
    other: '{count} download rimanenti',
  },
  'inbox.entry.download': 'Scarica {name}',
  'inbox.entry.downloading': 'Scaricamento di {name}…',
  'inbox.entry.downloaded': '{name} è stato salvato.',
  'inbox.entry.downloadFailed': 'Scaricamento di {name} non riuscito: {message}',
  'inbox.entry.delete': 'Elimina {name}',
  'inbox.entry.deleteConfirm': 'Eliminare {name} definitivamente?',
  'inbox.entry.deleted': '{name} è stato eliminato.',
  'inbox.entry.deleteFailed': 'Eliminazione di {name} non riuscita: {message}',
  'inbox.note.title': 'Nota di un mittente',
  'inbox.note.withFiles': 'La nota del mittente',
  'inbox.note.read': 'Mostra la nota',
  'inbox.entry.deleteWithNoteConfirm':
    'Eliminare definitivamente {name} insieme alla nota arrivata con esso?',
  'inbox.note.reading': 'Decifratura della nota…',
  'inbox.note.copy': 'Copia nota',
  'inbox.confirmYes': 'Sì, elimina',
  'inbox.close': 'Chiudi richiesta',
  'inbox.closeConfirm':
    'Chiudere la richiesta? I mittenti non potranno più caricare nulla; ciò che è arrivato resta.',
  'inbox.closeYes': 'Sì, chiudila',
  'inbox.closedDone': 'La richiesta è chiusa.',
  'inbox.closeFailed': 'Chiusura non riuscita: {message}',
  'inbox.delete': 'Elimina richiesta',
  'inbox.deleteConfirm': 'Eliminare definitivamente la richiesta e tutto il suo contenuto?',
  'inbox.deleted': 'La richiesta e tutto il suo contenuto sono stati eliminati.',
  'inbox.deleteFailed': 'Eliminazione non riuscita: {message}',
  'inbox.manage': 'Gestisci richiesta',
  'about.title': 'Informazioni',
  'about.intro':
    '{site} invia file, note e richieste di file cifrati end-to-end: il tuo browser li cifra prima che lo lascino, e solo chi ha il link può decifrarli.',
  'about.howTitle': 'Come funziona',
  'about.how':
    'Ogni link porta la sua chiave dopo il segno #. I browser non inviano mai quella parte a un server, quindi la chiave resta a te e alle persone a cui dai il link. Una password, se ne imposti una, serve in aggiunta al link.',
  'about.operatorTitle': 'Cosa può e non può vedere il gestore di questo server',
  'about.operatorCannot':
    'Il gestore non può leggere i tuoi file, i loro nomi, le tue note né i messaggi delle richieste di file: il server li conserva solo cifrati, senza la chiave.',
  'about.operatorCan':
    'Il gestore può vedere quanto è grande ogni caricamento, quando è stato fatto e scaricato, quanti file contiene e l’indirizzo di rete da cui è arrivato; su un server con accesso, anche chi lo ha creato.',
  'about.limitsTitle': 'Limiti',
  'about.limits':
    'Caricamenti e note vengono eliminati alla scadenza o quando il loro limite di download o di visualizzazioni è esaurito. Un link perso non può essere recuperato: nessuno, nemmeno il gestore, può aprire ciò a cui puntava.',
  'about.docsTitle': 'Documentazione',
  'about.docs':
    'La cifratura, l’API e le impostazioni del server sono descritte nella documentazione fornita con fileshare: docs/crypto.md, docs/api.md e docs/configuration.md. Il client a riga di comando si spiega da solo con fileshare --help.',
  'about.operatorTitleLinks': 'Gestore',
  'about.imprint': 'Note legali',
  'about.privacy': 'Informativa sulla privacy',
  'about.footerLink': 'Informazioni su questo servizio',
  'error.removed.title': 'Rimosso dal gestore',
  'error.removed.body': 'Il gestore di questo servizio ha rimosso ciò a cui puntava questo link.',
  'error.removed.reason': 'Motivo del gestore: {reason}',
  'report.link': 'Segnala',
  'report.title': 'Segnala al gestore',
  'report.intro':
    'Spiega al gestore di questo servizio cosa non va in questo contenuto, per esempio che è illegale o abusivo.',
  'report.reason': 'Motivo',
  'report.includeKey': 'Includi la chiave di questo link',
  'report.keyNote':
    'Senza la chiave il gestore non può vedere il contenuto: è cifrato e solo questo link lo apre.',
  'report.send': 'Invia segnalazione',
  'report.sending': 'Invio della segnalazione …',
  'report.sent': 'Grazie. La tua segnalazione è stata inviata al gestore.',
  'report.failed': 'Impossibile inviare la segnalazione. {message}',
} satisfies Translation<'one' | 'many' | 'other'>

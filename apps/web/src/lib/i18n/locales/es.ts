/**
 * Spanish (español). Informal address (tú), as most Spanish web apps use.
 *
 * Glossary: link = enlace; share link = enlace para compartir; upload (noun) = subida, to
 * upload = subir; download = descarga, to download = descargar; inbox = bandeja de entrada;
 * inbox link = enlace de la bandeja de entrada; upload link = enlace de subida; file request =
 * solicitud de archivos; note = nota; password = contraseña; expiry = caducidad («Caduca el»);
 * view = visualización; sender = remitente; requester = solicitante; key = clave; encrypted =
 * cifrado; upload allowance = cuota de subida; to delete = eliminar; to forget = olvidar;
 * operator = operador; imprint = aviso legal; privacy statement = política de privacidad.
 */
import type { Translation } from '../messages'

export default {
  'app.name': 'fileshare',
  'app.tagline':
    'Archivos, notas y solicitudes de archivos, cifrados en tu navegador antes de salir de él.',
  'app.logoAlt': 'Logotipo de {title}',
  'app.footer':
    'Cifrado de extremo a extremo: la clave se queda en el enlace y nunca llega al servidor.',
  'app.skipToContent': 'Saltar al contenido',
  'app.documentTitle': '{page} · {site}',
  'app.loading': 'Cargando…',
  'app.leaveBusy':
    'Si sales ahora, se detendrá o se perderá lo que está en curso en esta página. ¿Salir de todos modos?',
  'app.loadFailed': 'No se pudo cargar esta página. Comprueba tu conexión y recarga.',
  'app.language': 'Idioma',
  'app.configFailed': 'No se puede contactar con el servidor. Comprueba tu conexión y recarga.',

  'nav.label': 'Principal',
  'nav.menu': 'Menú',
  'nav.upload': 'Enviar archivos',
  'nav.note': 'Nota',
  'nav.request': 'Pedir archivos',
  'nav.history': 'Mis subidas',

  'action.copy': 'Copiar',
  'action.copied': 'Copiado',
  'action.copyFailed': 'No se pudo copiar; selecciona el texto y cópialo tú.',
  'action.share': 'Compartir',
  'action.copyNamed': 'Copiar: {label}',
  'action.shareNamed': 'Compartir: {label}',
  'action.shareCopied': 'Aquí no se puede compartir, así que se copió el enlace.',
  'action.cancel': 'Cancelar',
  'action.delete': 'Eliminar',
  'action.retry': 'Reintentar',
  'action.close': 'Cerrar',
  'action.showPassword': 'Mostrar contraseña',
  'action.hidePassword': 'Ocultar contraseña',

  'field.password': 'Contraseña',
  'field.passwordOptional': 'Contraseña (opcional)',
  'field.passwordHint': 'Quien abra el enlace también necesitará esta contraseña.',

  'option.downloads': {
    one: '{count} descarga',
    many: '{count} de descargas',
    other: '{count} descargas',
  },
  'option.views': {
    one: '{count} visualización',
    many: '{count} de visualizaciones',
    other: '{count} visualizaciones',
  },
  'option.uploads': { one: '{count} subida', many: '{count} de subidas', other: '{count} subidas' },

  'progress.label': 'Progreso',
  'progress.bytes': '{sent} de {total}',
  'progress.speed': '{rate}/s',
  'progress.eta': 'quedan {time}',
  'progress.etaUnknown': 'calculando el tiempo restante…',
  'progress.transport.websocket': 'WebSocket',
  'progress.transport.http': 'HTTP',
  'progress.via': 'Método de transferencia: {transport}',
  'progress.preparing': 'Preparando…',

  'qr.alt': 'Código QR del enlace',

  'time.expiresAt': 'Caduca el {date}',
  'time.expired': 'Caducado',

  'error.title': 'Algo salió mal',
  'error.notFound.title': 'No encontrado',
  'error.notFound.body':
    'No hay nada guardado con este enlace. Puede que se haya eliminado o que el enlace no se copiara entero (incluida la parte que sigue a #).',
  'error.gone.title': 'Ya no está disponible',
  'error.gone.body': 'Este enlace ha caducado o se ha agotado su límite de descargas.',
  'error.gone.expired': 'Este enlace ha caducado.',
  'error.gone.usedUp': 'Este enlace se ha abierto tantas veces como permitía y ya no funciona.',
  'error.sendNew': 'Enviar algo nuevo',
  'error.badLink.title': 'Enlace roto',
  'error.badLink.body':
    'Este enlace está incompleto o dañado. Pídelo de nuevo y cópialo entero, incluida la parte que sigue a #.',
  'error.wrongKey.title': 'La clave del enlace no coincide',
  'error.wrongKey.body':
    'La clave del enlace no abre esto. Comprueba que copiaste el enlace entero, incluida la parte que sigue a #.',
  'error.wrongKey.file':
    'La clave del enlace no abre este archivo. Comprueba que copiaste el enlace entero, incluida la parte que sigue a #.',
  'error.wrongKey.note':
    'La clave del enlace no abre esta nota. Comprueba que copiaste el enlace entero, incluida la parte que sigue a #.',
  'error.ownerTokenRefused':
    'El servidor no aceptó el derecho de este navegador a modificarlo. Puede que pertenezca a un enlace enviado desde otro lugar.',
  'error.locked.title': 'Demasiadas contraseñas incorrectas',
  'error.locked.body': 'Vuelve a intentarlo dentro de {time}.',
  'error.locked.bodyLater': 'Vuelve a intentarlo más tarde.',
  'error.locked.message':
    'Demasiadas contraseñas incorrectas. Vuelve a intentarlo dentro de {time}.',
  'error.locked.messageLater': 'Demasiadas contraseñas incorrectas. Vuelve a intentarlo más tarde.',
  'error.wrongPassword': 'Contraseña incorrecta. Inténtalo de nuevo.',
  'error.sourceChanged': '{name} cambió mientras se enviaba. Vuelve a enviarlo.',
  'error.sourcesChanged': 'Los archivos cambiaron mientras se enviaban. Vuelve a enviarlos.',
  'error.network':
    'No se puede contactar con el servidor. Comprueba tu conexión e inténtalo de nuevo.',
  'error.disabled': 'Esta función está desactivada en este servidor.',
  'error.tooLarge': 'Supera lo que acepta el servidor.',
  'error.rateLimited': 'Demasiadas solicitudes. Espera un momento e inténtalo de nuevo.',
  'error.quotaExceeded':
    'Supera lo que te queda de tu cuota de subida en este servidor. Prueba con una subida más pequeña o espera a que se renueve la cuota.',
  'error.quotaExhausted':
    'Has agotado tu cuota de subida en este servidor. Se renueva dentro de {time}.',
  'error.quotaExhaustedLater':
    'Has agotado tu cuota de subida en este servidor. Vuelve a intentarlo más tarde.',
  'quota.left':
    'Tu cuota de subida en este servidor: quedan {left} de {limit}. Se renueva dentro de {time}.',
  'quota.over':
    'Supera los {left} que te quedan de tu cuota de subida en este servidor. Se renueva dentro de {time}.',
  'error.loginRequired': 'Para esto tienes que iniciar sesión.',
  'error.generic': 'Algo salió mal: {message}',
  'error.integrity':
    'Los datos no superaron la comprobación de integridad: están dañados o han sido manipulados. No confíes en nada de su contenido.',

  'notFound.title': 'Página no encontrada',
  'notFound.body': 'No hay ninguna página en esta dirección.',
  'notFound.home': 'Ir a la página de inicio',

  'upload.title': 'Enviar archivos',
  'upload.intro':
    'Los archivos se cifran en tu navegador. Solo quien tenga el enlace puede abrirlos.',
  'upload.drop': 'Suelta aquí archivos o carpetas',
  'upload.dropActive': 'Suelta para añadir',
  'upload.chooseFiles': 'Elegir archivos',
  'upload.chooseFolder': 'Elegir carpeta',
  'upload.reading': 'Leyendo la carpeta…',
  'upload.paste': 'También puedes pegar archivos o una captura de pantalla.',
  'upload.listLabel': 'Archivos seleccionados',
  'upload.folderItem': '{name} (carpeta)',
  'upload.remove': 'Quitar {name}',
  'upload.total': {
    one: '{count} archivo, {size}',
    many: '{count} de archivos, {size}',
    other: '{count} archivos, {size}',
  },
  'upload.zipped': 'Varios archivos o una carpeta se envían como un único archivo ZIP.',
  'upload.tooLarge': 'En total superan los {max} que acepta este servidor.',
  'upload.tooMany': 'Este servidor acepta como máximo {max} archivos por subida.',
  'upload.empty': 'Añade al menos un archivo.',
  'upload.expiry': 'Caduca tras',
  'upload.downloads': 'Límite de descargas',
  'upload.submit': 'Subir',
  'upload.preparing': 'Cifrando…',
  'upload.uploading': 'Subiendo…',
  'upload.cancelled': 'Subida cancelada.',
  'upload.failed': 'La subida falló: {message}',
  'upload.resuming': 'Conexión perdida, reanudando…',
  'upload.resumedAt': 'Reanudado en {size}.',
  'upload.unfinished':
    'Una subida de {name} no terminó. Elige de nuevo los mismos archivos para continuarla.',
  'upload.resume': 'Reanudar la subida',
  'upload.discard': 'Empezar una subida nueva',
  'upload.resumeMismatch':
    'Estos no son los archivos de la subida sin terminar: un nombre, tamaño o fecha de modificación es distinto. Elige los mismos archivos o empieza una subida nueva.',
  'upload.resumeGone':
    'El servidor ya no tiene la subida sin terminar, así que no puede continuar. Empieza una subida nueva.',
  'upload.resumePassword': 'Contraseña de la subida sin terminar',
  'upload.resumePasswordHint':
    'Está protegida con contraseña: introduce su contraseña para continuarla.',
  'upload.done.title': 'Tus archivos están listos para compartir',
  'upload.done.link': 'Enlace para compartir',
  'upload.done.what': '{names} ({total})',
  'upload.done.expires': 'Caduca el {date}',
  'upload.done.downloads': {
    one: 'Queda {count} descarga',
    many: 'Quedan {count} de descargas',
    other: 'Quedan {count} descargas',
  },
  'upload.done.keepSafe':
    'Cualquiera con este enlace puede descargar los archivos. No se puede recuperar.',
  'upload.done.keepSafePassword':
    'Cualquiera con este enlace y la contraseña puede descargar los archivos. Envía la contraseña por una vía distinta del enlace (por ejemplo, por teléfono o por otra aplicación de mensajería). El enlace no se puede recuperar.',
  'upload.done.delete': 'Eliminar subida',
  'upload.done.confirmDelete':
    '¿Eliminar esta subida ahora? El enlace dejará de funcionar para todos.',
  'upload.done.deleting': 'Eliminando…',
  'upload.done.deleted': 'La subida se eliminó.',
  'upload.done.deleteFailed': 'No se pudo eliminar: {message}',
  'upload.done.another': 'Enviar otra cosa',

  'media.play': 'Reproducir aquí',
  'media.counts':
    'Reproducir cuenta como una descarga, igual que descargar; avanzar o volver a reproducir no cuenta más.',
  'media.opening': 'Abriendo…',
  'media.failed': 'Este archivo no se puede reproducir aquí: {message}',
  'media.label': '{name}, descifrado mientras se reproduce',
  'download.title': 'Descarga',
  'download.titleLocked': 'Se necesita contraseña',
  'download.checking': 'Comprobando el enlace…',
  'download.lockedIntro': 'Estos archivos están protegidos con contraseña.',
  'download.unlock': 'Desbloquear',
  'download.unlocking': 'Comprobando la contraseña…',
  'download.filesLabel': 'Archivos',
  'download.archive': 'Estos archivos llegan como un único archivo ZIP.',
  'download.total': {
    one: '{count} archivo, {size}',
    many: '{count} de archivos, {size}',
    other: '{count} archivos, {size}',
  },
  'download.expires': 'Caduca el {date}',
  'download.left': {
    one: 'Queda {count} descarga',
    many: 'Quedan {count} de descargas',
    other: 'Quedan {count} descargas',
  },
  'download.counts': 'Descargar cuenta para el límite.',
  'download.lastDone': 'Esa fue la última descarga; este enlace ya no funciona.',
  'download.button': 'Descargar',
  'download.downloading': 'Descargando y descifrando…',
  'download.done': 'Descarga completada.',
  'download.cancelled': 'Descarga cancelada.',
  'download.failed': 'La descarga falló: {message}',
  'download.noMetadata': 'Los nombres de los archivos no están disponibles.',
  'download.unnamed': 'descarga',
  'download.archiveName': 'archivos.zip',
  'download.blobWarning':
    'Este navegador no puede guardar directamente en el disco, así que el archivo se monta primero en memoria. Los archivos de más de {limit} no se pueden descargar aquí; usa una versión actual de Chrome, Edge o Firefox.',
  'download.blobTooLarge':
    'Este archivo es demasiado grande para descargarlo en este navegador ({size}, límite {limit}). Usa una versión actual de Chrome, Edge o Firefox.',

  'history.title': 'Mis subidas',
  'history.intro':
    'Todo lo enviado desde este navegador. La lista se queda en este dispositivo; olvidar un elemento no lo elimina del servidor.',
  'history.empty': 'Todavía no se ha enviado nada desde este navegador.',
  'history.kind.file': 'Archivos',
  'history.kind.note': 'Nota',
  'history.kind.request': 'Solicitud de archivos',
  'history.link': 'Enlace',
  'history.refreshing': 'Actualizando…',
  'history.gone': 'Ya no está disponible',
  'history.status.unknown': 'Estado desconocido · Caduca el {date}',
  'history.status.file': {
    one: 'Queda {count} descarga · Caduca el {date}',
    many: 'Quedan {count} de descargas · Caduca el {date}',
    other: 'Quedan {count} descargas · Caduca el {date}',
  },
  'history.status.note': {
    one: 'Queda {count} visualización · Caduca el {date}',
    many: 'Quedan {count} de visualizaciones · Caduca el {date}',
    other: 'Quedan {count} visualizaciones · Caduca el {date}',
  },
  'history.status.request': {
    one: 'Queda {count} subida · Caduca el {date}',
    many: 'Quedan {count} de subidas · Caduca el {date}',
    other: 'Quedan {count} subidas · Caduca el {date}',
  },
  'history.status.requestClosed': {
    one: 'Queda {count} subida · Caduca el {date} · Cerrada a nuevas subidas',
    many: 'Quedan {count} de subidas · Caduca el {date} · Cerrada a nuevas subidas',
    other: 'Quedan {count} subidas · Caduca el {date} · Cerrada a nuevas subidas',
  },
  'history.created': 'Enviado el {date}',
  'history.delete': 'Eliminar {name}',
  'history.forget': 'Olvidar {name}',
  'history.forgetButton': 'Olvidar',
  'history.forgetConfirm':
    '¿Olvidar «{name}»? Este navegador dejará de tener su enlace y el derecho a eliminarlo. La subida en sí se queda en el servidor hasta que caduque.',
  'history.forgetGoneConfirm': '¿Quitar «{name}» de esta lista?',
  'history.deleteConfirm': '¿Eliminar «{name}» del servidor? No se puede deshacer.',
  'history.deleted': '«{name}» se eliminó.',
  'history.deleteFailed': 'No se pudo eliminar: {message}',
  'history.noteLabel': 'Nota ({type})',
  'history.requestLabel': 'Solicitud de archivos',
  'history.unavailable':
    'Este navegador no puede guardar un historial (el almacenamiento está bloqueado).',

  'login.signIn': 'Iniciar sesión',
  'login.signOut': 'Cerrar sesión',
  'login.signedInAs': 'Sesión iniciada como {name}',
  'login.gate.title': 'Inicia sesión para continuar',
  'login.gate.files':
    'En este servidor solo los usuarios con sesión iniciada pueden enviar archivos.',
  'login.gate.notes': 'En este servidor solo los usuarios con sesión iniciada pueden crear notas.',
  'login.gate.requests':
    'En este servidor solo los usuarios con sesión iniciada pueden crear solicitudes de archivos.',

  'note.new.title': 'Escribir una nota',
  'note.new.intro':
    'Las notas se cifran en tu navegador. El enlace abre la nota un número limitado de veces y después desaparece.',
  'note.type.label': 'Tipo de nota',
  'note.type.text': 'Texto',
  'note.type.markdown': 'Markdown',
  'note.type.code': 'Código',
  'note.type.password': 'Contraseñas',
  'note.type.sshkey': 'Clave SSH',

  'note.text.label': 'Nota',
  'note.markdown.label': 'Markdown',
  'note.markdown.preview': 'Vista previa',
  'note.markdown.previewEmpty': 'La vista previa aparece aquí mientras escribes.',
  'note.markdown.rules':
    'El HTML se muestra como texto, las imágenes se convierten en enlaces y solo funcionan los enlaces web y de correo.',
  'note.code.label': 'Código',
  'note.code.language': 'Resaltar como',
  'note.code.auto': 'Detectar automáticamente',
  'note.code.plain': 'Texto sin formato',
  'note.code.detected': 'Detectado: {language}',
  'note.code.preview': 'Vista previa',
  'note.code.languageHint': 'El lenguaje no se guarda con la nota; quien la lea lo verá detectado.',

  'note.pw.listLabel': 'Entradas de contraseñas',
  'note.pw.entry': 'Entrada {n}',
  'note.pw.label': 'Etiqueta',
  'note.pw.username': 'Nombre de usuario',
  'note.pw.password': 'Contraseña',
  'note.lockPassword': 'Contraseña del enlace (opcional)',
  'note.pw.url': 'Dirección',
  'note.pw.add': 'Añadir entrada',
  'note.pw.remove': 'Quitar la entrada {n}',
  'note.pw.generate': 'Generar contraseña para la entrada {n}',
  'note.pw.generateShort': 'Generar contraseña',
  'note.pw.removeShort': 'Quitar',
  'note.pw.empty': 'Añade al menos una contraseña.',
  'note.gen.title': 'Generador de contraseñas',
  'note.gen.length': 'Longitud',
  'note.gen.lower': 'Minúsculas (a–z)',
  'note.gen.upper': 'Mayúsculas (A–Z)',
  'note.gen.digits': 'Dígitos (0–9)',
  'note.gen.symbols': 'Símbolos (!#$…)',
  'note.gen.noClass': 'Elige al menos un tipo de carácter.',

  'note.ssh.generate': 'Generar par de claves Ed25519',
  'note.ssh.generating': 'Generando…',
  'note.ssh.comment': 'Comentario de la clave (opcional)',
  'note.ssh.commentHint': 'Suele ser usuario@host; va detrás de la clave pública.',
  'note.ssh.generated':
    'Se creó un nuevo par de claves en tu navegador. Añade la clave pública donde inicias sesión; la nota lleva las dos claves.',
  'note.ssh.savePrivateKey': 'Guardar la clave privada como archivo',
  'note.ssh.unsupported':
    'Este navegador no puede generar claves Ed25519. Pega una clave en su lugar.',
  'note.ssh.label': 'Claves SSH',
  'note.ssh.hint': 'Genera un par arriba, o pega una clave privada, una clave pública o ambas.',
  'note.ssh.publicKey': 'Clave pública',
  'note.ssh.privateKey': 'Clave privada',
  'note.ssh.otherText': 'Otro texto',
  'note.ssh.fingerprint': 'Huella {fingerprint}',

  'note.views': 'Límite de visualizaciones',
  'note.expiry': 'Caduca tras',
  'note.size': '{used} de {max}',
  'note.sizeLimit': 'Hasta {max}',
  'note.tooLarge': 'La nota supera los {max} que acepta este servidor.',
  'note.empty': 'Escribe algo primero.',
  'note.submit': 'Crear nota',
  'note.creating': 'Cifrando…',
  'note.failed': 'No se pudo crear la nota: {message}',

  'note.done.title': 'Tu nota está lista para compartir',
  'note.done.link': 'Enlace de la nota',
  'note.done.views': {
    one: 'Se puede abrir {count} vez',
    many: 'Se puede abrir {count} de veces',
    other: 'Se puede abrir {count} veces',
  },
  'note.done.expires': 'Caduca el {date}',
  'note.done.keepSafe':
    'Cualquiera con este enlace puede leer la nota. El enlace no se puede recuperar.',
  'note.done.keepSafePassword':
    'Cualquiera con este enlace y la contraseña puede leer la nota. Envía la contraseña por una vía distinta del enlace (por ejemplo, por teléfono o por otra aplicación de mensajería). El enlace no se puede recuperar.',
  'note.done.delete': 'Eliminar nota',
  'note.done.confirmDelete': '¿Eliminar esta nota ahora? El enlace dejará de funcionar para todos.',
  'note.done.deleting': 'Eliminando…',
  'note.done.deleted': 'La nota se eliminó.',
  'note.done.deleteFailed': 'No se pudo eliminar: {message}',
  'note.done.another': 'Escribir otra nota',

  'note.view.title': 'Nota',
  'note.view.titleLocked': 'Se necesita contraseña',
  'note.view.checking': 'Comprobando el enlace…',
  'note.view.lockedIntro': 'Esta nota está protegida con contraseña.',
  'note.view.unlock': 'Desbloquear',
  'note.view.unlocking': 'Comprobando la contraseña…',
  'note.view.unlockNoView': 'Comprobar la contraseña no gasta ninguna visualización.',
  'note.view.kind': 'Tipo: {type}',
  'note.view.viewsLeft': {
    one: 'Queda {count} visualización',
    many: 'Quedan {count} de visualizaciones',
    other: 'Quedan {count} visualizaciones',
  },
  'note.view.expires': 'Caduca el {date}',
  'note.view.consumeWarning':
    'Abrir la nota gasta una de sus visualizaciones. Cuando se gasta la última, la nota desaparece para siempre.',
  'note.view.reveal': {
    one: 'Mostrar (gasta 1 de {count} visualizaciones)',
    many: 'Mostrar (gasta 1 de {count} de visualizaciones)',
    other: 'Mostrar (gasta 1 de {count} visualizaciones)',
  },
  'note.view.revealLast': 'Mostrar (gasta la última visualización)',
  'note.view.revealing': 'Abriendo…',
  'note.view.lastView':
    'Era la última visualización: la nota ya se ha eliminado del servidor. Copia lo que necesites antes de salir de esta página.',
  'note.view.copyAll': 'Copiar toda la nota',
  'note.view.copyUsername': 'Copiar el nombre de usuario de {name}',
  'note.view.copyPassword': 'Copiar la contraseña de {name}',
  'note.view.copyPublicKey': 'Copiar la clave pública {n}',
  'note.view.copyPrivateKey': 'Copiar la clave privada {n}',
  'note.view.showPassword': 'Mostrar la contraseña de {name}',
  'note.view.hidePassword': 'Ocultar la contraseña de {name}',
  'note.view.hidden': '••••••••',
  'note.view.entries': 'Contraseñas',
  'note.view.noEntries': 'Esta lista de contraseñas está vacía.',

  'request.new.title': 'Pedir archivos',
  'request.new.intro':
    'Pide a otras personas que te envíen archivos. Se cifran en el navegador del remitente y solo tu enlace de la bandeja de entrada los abre.',
  'request.message': 'Mensaje para los remitentes',
  'request.messageHint':
    'Se muestra en la página de subida, por ejemplo qué hay que enviar. También se cifra.',
  'request.messageTooLong': 'El mensaje es demasiado largo.',
  'request.acceptsNote': 'Los remitentes pueden añadir una nota',
  'request.expiry': 'Abierta durante',
  'request.uploads': 'Número de subidas',
  'request.maxSize': 'Subida máxima',
  'request.downloads': 'Descargas por subida',
  'request.password': 'Contraseña de la bandeja de entrada (opcional)',
  'request.passwordRequired': 'Contraseña de la bandeja de entrada (obligatoria en este servidor)',
  'request.passwordHint':
    'Para abrir el enlace de la bandeja de entrada también hará falta esta contraseña.',
  'request.passwordMissing': 'Este servidor exige una contraseña para la bandeja de entrada.',
  'request.limit': 'Te quedan {count} de {limit} solicitudes nuevas hoy.',
  'request.limitReached':
    'Has usado las {limit} solicitudes de hoy. Podrás crear más a partir del {date}.',
  'request.submit': 'Crear solicitud',
  'request.notify.title': 'Avisarme cuando llegue un archivo (opcional)',
  'request.notify.email': 'Correo electrónico',
  'request.notify.webhook': 'URL de webhook (https)',
  'request.notify.privacy':
    'El servidor conoce esta dirección o URL para enviar el aviso. El aviso solo dice que llegó un archivo, cuándo y su tamaño aproximado: nunca un nombre de archivo ni un enlace.',
  'request.notify.secret': 'Clave de firma del webhook (solo se muestra ahora)',
  'request.notify.secretHint':
    'Cada webhook lleva X-Fileshare-Signature: sha256= y el HMAC-SHA256 de su cuerpo con esta clave.',
  'request.creating': 'Creando…',
  'request.failed': 'No se pudo crear la solicitud: {message}',

  'request.done.title': 'Tu solicitud de archivos está lista',
  'request.done.uploadLink': 'Enlace de subida (para remitentes)',
  'request.done.uploadHint':
    'Con este enlace pueden enviarte archivos. No pueden ver lo que enviaron otros.',
  'request.done.inboxLink': 'Enlace de la bandeja de entrada (el tuyo)',
  'request.done.inboxHint':
    'Cualquiera con este enlace puede leer, descargar y eliminar lo que se envió. Mantenlo en privado: no se puede recuperar, así que guárdalo ahora.',
  'request.done.inboxHintPassword':
    'Cualquiera con este enlace y la contraseña que elegiste puede leer, descargar y eliminar lo que se envió. Mantenlo en privado: no se puede recuperar, así que guárdalo ahora.',
  'request.done.uploads': {
    one: 'Admite {count} subida',
    many: 'Admite {count} de subidas',
    other: 'Admite {count} subidas',
  },
  'request.done.uploadQr': 'Código QR del enlace de subida',
  'request.done.closes': 'Acepta subidas hasta el {date}',
  'request.done.openInbox': 'Abrir la bandeja de entrada',
  'request.done.another': 'Crear otra solicitud',
  'request.historyLabel': 'Solicitud de archivos: {message}',

  'request.send.title': 'Enviar archivos',
  'request.send.checking': 'Abriendo la solicitud…',
  'request.send.intro':
    'Alguien te ha pedido archivos. Se cifran antes de salir de tu navegador; solo el solicitante puede abrirlos.',
  'request.send.message': 'Mensaje del solicitante',
  'request.send.noMessage': 'El solicitante no dejó ningún mensaje.',
  'request.send.closes': 'Abierta hasta el {date}',
  'request.send.left': {
    one: 'Queda {count} subida',
    many: 'Quedan {count} de subidas',
    other: 'Quedan {count} subidas',
  },
  'request.send.maxSize': 'Hasta {size} por subida',
  'request.send.note': 'Nota (opcional)',
  'request.send.noteHint': 'Se envía cifrada junto con tus archivos.',
  'request.send.noteTooLong': 'La nota es demasiado larga ({size} como máximo).',
  'request.send.noRoomForNote':
    'Solo queda una subida, así que no se pueden enviar archivos y una nota a la vez. Envía uno de los dos.',
  'request.send.heldByUnfinished':
    'Esta solicitud no tiene sitio para otra subida mientras tu subida sin terminar de {name} ocupe su lugar. Reanúdala con los mismos archivos o empieza una subida nueva, que la termina.',
  'request.send.empty': 'Añade archivos primero.',
  'request.send.emptyOrNote': 'Añade archivos o escribe una nota primero.',
  'request.send.tooLarge': 'En total superan los {max} que acepta esta solicitud.',
  'request.send.tooMany': 'Esta solicitud acepta como máximo {max} archivos por subida.',
  'request.send.submit': 'Enviar',
  'request.send.sending': 'Cifrando y enviando…',
  'request.send.sendingNote': 'Enviando la nota…',
  'request.send.cancelled': 'Se canceló el envío. No se guardó nada.',
  'request.send.failed': 'El envío falló: {message}',
  'request.send.done.title': 'Enviado',
  'request.send.done.body':
    'Lo que enviaste se cifró y se entregó. Solo el solicitante puede abrirlo.',
  'request.send.done.another': 'Enviar más',
  'request.send.closed.title': 'Esta solicitud está cerrada',
  'request.send.closed.body':
    'El solicitante la cerró o ha caducado, así que ya no acepta archivos. Pídele un enlace nuevo.',
  'request.send.full.title': 'Esta solicitud está completa',
  'request.send.full.body':
    'Ya ha recibido todas las subidas que acepta. Pide un enlace nuevo al solicitante.',

  'inbox.title': 'Bandeja de entrada',
  'inbox.titleLocked': 'Se necesita contraseña',
  'inbox.checking': 'Abriendo la bandeja de entrada…',
  'inbox.lockedIntro': 'Esta bandeja de entrada está protegida con contraseña.',
  'inbox.unlock': 'Desbloquear',
  'inbox.unlocking': 'Comprobando la contraseña…',
  'inbox.message': 'Tu mensaje para los remitentes',
  'inbox.noMessage': 'Sin mensaje.',
  'inbox.open': 'Acepta subidas hasta el {date}',
  'inbox.closed': 'Cerrada: no acepta nuevas subidas.',
  'inbox.expired': 'Caducó el {date}: no acepta nuevas subidas.',
  'inbox.used': {
    one: 'Subidas usadas: {used} de {count}',
    many: 'Subidas usadas: {used} de {count}',
    other: 'Subidas usadas: {used} de {count}',
  },
  'inbox.uploadLink': 'Enlace de subida (para remitentes)',
  'inbox.listTitle': 'Recibido',
  'inbox.empty': 'Todavía no ha llegado nada.',
  'inbox.refresh': 'Actualizar',
  'inbox.downloadAll': 'Descargar los {count} en una carpeta',
  'inbox.downloadAllDone': {
    one: '{count} de {total} archivos guardado en la carpeta.',
    many: '{count} de {total} archivos guardados en la carpeta.',
    other: '{count} de {total} archivos guardados en la carpeta.',
  },
  'inbox.downloadAllFailed': 'No se pudo abrir la carpeta: {message}',
  'inbox.unreadable': {
    one: 'No se pudo descifrar {count} subida. Puede que un remitente enviara datos dañados.',
    many: 'No se pudieron descifrar {count} de subidas. Puede que un remitente enviara datos dañados.',
    other:
      'No se pudieron descifrar {count} subidas. Puede que un remitente enviara datos dañados.',
  },
  'inbox.entry.archiveSummary': {
    one: 'Archivo ZIP con {count} archivo, {size}',
    many: 'Archivo ZIP con {count} de archivos, {size}',
    other: 'Archivo ZIP con {count} archivos, {size}',
  },
  'inbox.entry.fileSummary': 'Un archivo, {size}',
  'inbox.entry.archiveName': 'archivos-{date}.zip',
  'inbox.entry.files': {
    one: '{count} archivo',
    many: '{count} de archivos',
    other: '{count} archivos',
  },
  'inbox.entry.received': 'Recibido el {date}',
  'inbox.entry.kept': 'Se guarda hasta el {date}',
  'inbox.entry.left': {
    one: 'Queda {count} descarga',
    many: 'Quedan {count} de descargas',
    other: 'Quedan {count} descargas',
  },
  'inbox.entry.download': 'Descargar {name}',
  'inbox.entry.downloading': 'Descargando {name}…',
  'inbox.entry.downloaded': '{name} se guardó.',
  'inbox.entry.downloadFailed': 'No se pudo descargar {name}: {message}',
  'inbox.entry.delete': 'Eliminar {name}',
  'inbox.entry.deleteConfirm': '¿Eliminar {name} definitivamente?',
  'inbox.entry.deleted': '{name} se eliminó.',
  'inbox.entry.deleteFailed': 'No se pudo eliminar {name}: {message}',
  'inbox.note.title': 'Nota de un remitente',
  'inbox.note.withFiles': 'La nota del remitente',
  'inbox.note.read': 'Mostrar la nota',
  'inbox.entry.deleteWithNoteConfirm':
    '¿Eliminar definitivamente {name} y la nota que llegó con él?',
  'inbox.note.reading': 'Descifrando la nota…',
  'inbox.note.copy': 'Copiar nota',
  'inbox.confirmYes': 'Sí, eliminar',
  'inbox.close': 'Cerrar solicitud',
  'inbox.closeConfirm':
    '¿Cerrar la solicitud? Los remitentes ya no podrán subir nada; lo que ha llegado se queda.',
  'inbox.closeYes': 'Sí, cerrarla',
  'inbox.closedDone': 'La solicitud está cerrada.',
  'inbox.closeFailed': 'No se pudo cerrar: {message}',
  'inbox.delete': 'Eliminar solicitud',
  'inbox.deleteConfirm': '¿Eliminar definitivamente la solicitud y todo su contenido?',
  'inbox.deleted': 'Se eliminaron la solicitud y todo su contenido.',
  'inbox.deleteFailed': 'No se pudo eliminar: {message}',
  'inbox.manage': 'Gestionar solicitud',
  'tokens.title': 'Tokens de API',
  'tokens.nav': 'Tokens de API',
  'tokens.intro':
    'Los scripts y la línea de comandos pueden crear con un token de API personal en lugar de iniciar sesión. Un token puede crear lo que usted le permita, hasta que caduque o lo revoque.',
  'tokens.signIn': 'Inicie sesión para gestionar sus tokens de API.',
  'tokens.unavailable':
    'Este servidor no pide iniciar sesión para crear nada, así que no tiene tokens de API.',
  'tokens.form.title': 'Nuevo token',
  'tokens.form.name': 'Nombre',
  'tokens.form.nameHint': 'Para qué es el token, por ejemplo «copia de seguridad nocturna».',
  'tokens.form.scopes': 'Puede crear',
  'tokens.form.expiry': 'Caduca tras',
  'tokens.form.create': 'Crear token',
  'tokens.form.creating': 'Creando…',
  'tokens.form.nameMissing': 'Dé al token un nombre de 100 caracteres como máximo.',
  'tokens.form.scopesMissing': 'Elija al menos una cosa que el token pueda crear.',
  'tokens.scope.files': 'Archivos',
  'tokens.scope.notes': 'Notas',
  'tokens.scope.requests': 'Solicitudes de archivos',
  'tokens.created.title': 'Su nuevo token',
  'tokens.created.label': 'Token',
  'tokens.created.warning':
    'Cópielo ahora: no se volverá a mostrar. Quien lo tenga puede crear en su nombre hasta que caduque o lo revoque.',
  'tokens.created.cli':
    'En la línea de comandos, ejecute «fileshare login --token -» y péguelo, o defina FILESHARE_TOKEN.',
  'tokens.created.done': 'Listo',
  'tokens.list.title': 'Sus tokens',
  'tokens.list.empty': 'No tiene tokens de API.',
  'tokens.list.scopes': 'Puede crear',
  'tokens.list.created': 'Creado',
  'tokens.list.lastUsed': 'Último uso',
  'tokens.list.expires': 'Caduca',
  'tokens.list.never': 'Nunca',
  'tokens.revoke': 'Revocar',
  'tokens.revoking': 'Revocando…',
  'tokens.revokeLabel': 'Revocar {name}',

  'about.title': 'Acerca de',
  'about.intro':
    '{site} envía archivos, notas y solicitudes de archivos cifrados de extremo a extremo: tu navegador los cifra antes de que salgan de él, y solo quienes tienen el enlace pueden descifrarlos.',
  'about.howTitle': 'Cómo funciona',
  'about.how':
    'Cada enlace lleva su clave después del signo #. Los navegadores nunca envían esa parte a un servidor, así que la clave se queda contigo y con las personas a las que das el enlace. Una contraseña, si pones una, se necesita además del enlace.',
  'about.operatorTitle': 'Qué puede ver y qué no el operador de este servidor',
  'about.operatorCannot':
    'El operador no puede leer tus archivos, sus nombres, tus notas ni los mensajes de las solicitudes de archivos: el servidor solo los guarda cifrados, sin la clave.',
  'about.operatorCan':
    'El operador puede ver el tamaño de cada subida, cuándo se hizo y se descargó, cuántos archivos contiene y la dirección de red desde la que llegó; en un servidor con inicio de sesión, también quién la creó.',
  'about.limitsTitle': 'Límites',
  'about.limits':
    'Las subidas y las notas se eliminan cuando caducan o cuando se agota su límite de descargas o de visualizaciones. Un enlace perdido no se puede recuperar: nadie, ni siquiera el operador, puede abrir aquello a lo que apuntaba.',
  'about.docsTitle': 'Documentación',
  'about.docs':
    'El cifrado, la API y la configuración del servidor se describen en la documentación que acompaña a fileshare: docs/crypto.md, docs/api.md y docs/configuration.md. El cliente de línea de comandos se explica a sí mismo con fileshare --help.',
  'about.operatorTitleLinks': 'Operador',
  'about.imprint': 'Aviso legal',
  'about.privacy': 'Política de privacidad',
  'about.footerLink': 'Acerca de este servicio',
  'error.removed.title': 'Eliminado por el operador',
  'error.removed.body':
    'El operador de este servicio eliminó aquello a lo que apuntaba este enlace.',
  'error.removed.reason': 'Motivo del operador: {reason}',
  'report.link': 'Denunciar',
  'report.title': 'Denunciar al operador',
  'report.intro':
    'Indique al operador de este servicio qué problema tiene este contenido, por ejemplo, que es ilegal o abusivo.',
  'report.reason': 'Motivo',
  'report.includeKey': 'Incluir la clave de este enlace',
  'report.keyNote':
    'Sin la clave, el operador no puede ver el contenido: está cifrado y solo este enlace lo abre.',
  'report.send': 'Enviar denuncia',
  'report.sending': 'Enviando la denuncia …',
  'report.sent': 'Gracias. Su denuncia se envió al operador.',
  'report.failed': 'No se pudo enviar la denuncia. {message}',
} satisfies Translation<'one' | 'many' | 'other'>

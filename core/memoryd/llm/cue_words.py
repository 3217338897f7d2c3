"""The words other languages state a memory's type with, as memoryd.llm.cues holds
English's and Chinese's. German, French, Spanish, Portuguese, Italian, Russian, Japanese
and Korean each get the same kinds: a label the writer put first ("Achtung:", "注意："),
the act of choosing (entschieden, on part sur, 決めた, 하기로 했어), caution (Vorsicht,
ojo con, нельзя, 気をつけて, 조심) and when a prohibition holds, a standing rule (immer,
désormais, 今後, 앞으로), a taste (lieber, prefiero), being asked to keep something (merk
dir, retiens, 覚えておいて), keeping a how-to (note la procédure, 手順をメモ), steps in order
(zuerst ... dann, まず ... 次に), a problem reported (Fehler, ошибка, エラー) and a request.

memoryd.keyterms keeps them out of keywords: they say what kind of memory it is, not what
it is about (said_at). They do not type sessions: the learned classifier
(memoryd.llm.typeclf) does that for these languages, from the embeddings. Read as cues,
these words raised type accuracy on the ml set they were written against (63.9% -> 77.8%)
and lowered it on ml2, written blind (64.6% -> 58.3%; bench/proposal_quality.py).

The lists are what grammars and phrasebooks give for each, not what one set of sessions
happened to say; a language's words apply only to a text in that language, so the Italian
"mai" (never) is not read in a German "im Mai", nor the German "hier" (here) as the French
one (yesterday).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from memoryd import fusion, language

_I = re.I


@dataclass(frozen=True)
class Words:
    """One language's cue patterns (all searched case-insensitively)."""

    labels: tuple[tuple[str, re.Pattern[str]], ...]
    decision: re.Pattern[str]
    caution: re.Pattern[str]
    prohibit: re.Pattern[str]
    otherwise: re.Pattern[str]
    moment: re.Pattern[str]  # when a prohibition holds: "während", "en prod", 本番で
    standing: re.Pattern[str]
    reported: re.Pattern[str]  # a standing word telling what happens, not a rule
    prefer: re.Pattern[str]
    remember: re.Pattern[str]
    adopt: re.Pattern[str]
    sequence: re.Pattern[str]
    problem: re.Pattern[str]
    request: re.Pattern[str]


def _w(words: str) -> str:
    """Alternatives of whole words (Latin and Cyrillic scripts)."""
    return r"\b(?:" + words + r")\b"


def _labels(**by_type: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((t, re.compile(rf"^(?:{w})\b[^:：]{{0,30}}[:：]", _I)) for t, w in by_type.items())


def _cjk_labels(**by_type: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((t, re.compile(rf"^(?:{w})[^:：]{{0,8}}[:：]")) for t, w in by_type.items())


def _adopt(keep: str, how_to: str, spaced: bool = True) -> re.Pattern[str]:
    """Keeping a how-to: a verb of keeping near a word for one, in either order."""
    k, h = (_w(keep), _w(how_to)) if spaced else (f"(?:{keep})", f"(?:{how_to})")
    return re.compile(rf"{k}[^.!?。！？]{{0,40}}{h}|{h}[^.!?。！？]{{0,40}}{k}", _I)


def _steps(first: str, then: str, spaced: bool = True) -> re.Pattern[str]:
    a, b = (_w(first), _w(then)) if spaced else (f"(?:{first})", f"(?:{then})")
    return re.compile(rf"{a}[\s\S]{{1,300}}?{b}", _I)


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _I)


@cache
def _table() -> dict[str, Words]:
    """Compiled on first use: sessions in English and Chinese (most) never pay for it."""
    return {
        "de": Words(
            labels=_labels(
                warning="achtung|vorsicht|warnung|wichtig",
                decision="entscheidung|beschluss|entschieden",
                preference="regel|konvention|vorliebe",
                playbook="schritte|anleitung|ablauf|checkliste",
            ),
            decision=_c(
                _w(
                    r"entschieden|beschlossen|festgelegt|geeinigt|die wahl fällt auf|wir bleiben bei|"
                    r"(?:wir )?steigen (?:wir )?(?:auf|um)|wechseln wir (?:zu|auf)|wir wechseln (?:zu|auf)|"
                    r"machen wir so|gebucht"
                )
            ),
            caution=_c(
                _w(
                    r"vorsicht|achtung|aufpassen|pass (?:bloß |ja |bitte )?auf|passt auf|auf keinen fall|"
                    r"keinesfalls|bloß nicht|nie wieder|lehrgeld|"
                    r"(?:darf|darfst|dürfen) (?:man )?(?:nicht|nie|kein\w*)"
                )
            ),
            prohibit=_c(_w(r"nie|niemals|nicht|kein|keine|keinen|verboten")),
            otherwise=_c(_w(r"sonst|andernfalls|ansonsten")),
            moment=_c(_w(r"während|bevor|solange|auf (?:prod\w*|staging|live|main|master)")),
            standing=_c(
                _w(
                    r"immer|nie|niemals|stets|grundsätzlich|ab jetzt|ab sofort|von jetzt an|künftig|"
                    r"zukünftig|in zukunft|ab heute|standardmäßig"
                )
            ),
            reported=_c(_w(r"immer (?:noch|wieder|mehr)|noch immer|wie immer|fast (?:immer|nie)|eh nie")),
            prefer=_c(_w(r"lieber|bevorzuge|bevorzugen|bevorzugt|am liebsten|ich mag|mag ich|per default")),
            remember=_c(
                _w(
                    r"merk dir|merke dir|merken|nicht vergessen|vergiss nicht|denk dran|denk daran|"
                    r"zur info|fürs protokoll|notier|notiere|notieren|notiert"
                )
            ),
            adopt=_adopt(
                r"merk\w*|speicher\w*|notier\w*|aufschreiben|schreib\w*|behalt\w*",
                r"anleitung|ablauf|checkliste|schritte|vorgehen|prozedur|reihenfolge",
            ),
            sequence=_steps(
                r"zuerst|zuallererst|als erstes|erstmal", r"dann|danach|anschließend|zum schluss"
            ),
            problem=_c(
                _w(
                    r"fehler\w*|error|geht nicht|funktioniert nicht|klappt nicht|kaputt|abgestürzt|"
                    r"stürzt ab|hängt"
                )
            ),
            request=_c(r"^(?:kannst du|könntest du|kannste|bitte|mach|schreib|zeig|erklär|hilf|gib)\b"),
        ),
        "fr": Words(
            labels=_labels(
                warning="attention|avertissement|important|prudence",
                decision="décision|décidé",
                preference="règle|convention|préférence",
                playbook="étapes|procédure|marche à suivre|checklist",
            ),
            decision=_c(
                _w(
                    r"(?:on a|nous avons|j'ai|on) (?:\w+ ){0,2}?(?:décidé|choisi|opté|tranché|retenu)|"
                    r"c'est décidé|on part sur|on va partir sur|on passe (?:à|sur)|on reste sur|va pour"
                )
            ),
            caution=_c(
                _w(
                    r"attention|méfie-toi|méfiez-vous|fais gaffe|faites gaffe|gaffe à|prudence|"
                    r"surtout pas|surtout ne|à ne (?:jamais|surtout pas)|"
                    r"il ne faut (?:surtout |jamais |pas)|ne (?:doit|dois|devez) (?:jamais|pas)"
                )
            ),
            prohibit=_c(_w(r"jamais|pas de|ne pas|interdit|surtout pas")),
            otherwise=_c(_w(r"sinon|autrement|sans quoi|faute de quoi")),
            moment=_c(_w(r"quand|pendant|avant|tant que|en prod\w*|sur (?:la )?prod\w*|sur staging")),
            standing=_c(
                _w(
                    r"toujours|jamais|désormais|dorénavant|à partir de maintenant|à l'avenir|"
                    r"systématiquement|par défaut"
                )
            ),
            reported=_c(
                _w(
                    r"toujours pas|pas toujours|(?:est|sont|était|reste|marche|plante|ai|as|a|ont) toujours|"
                    r"(?:ai|as|a|avons|ont) jamais"
                )
            ),
            prefer=_c(
                _w(
                    r"je préfère|on préfère|préfère|préfères|préférons|préférez|plutôt que|"
                    r"j'aime (?:bien|pas)|je déteste"
                )
            ),
            remember=_c(
                _w(
                    r"retiens|retiens-le|retenez|n'oublie pas|note (?:que|bien|ça|le|la)|notez|"
                    r"garde en tête|pour info|à noter|mémorise"
                )
            ),
            adopt=_adopt(
                r"note|notes|noter|garde|enregistre|sauvegarde|retiens",
                r"procédure|étapes|manip|marche à suivre|checklist|démarche",
            ),
            sequence=_steps(r"d'abord|tout d'abord|en premier", r"puis|ensuite|après|enfin"),
            problem=_c(_w(r"erreur\w*|bug|plante|planté|marche pas|fonctionne pas|cassé|crash\w*|bloqué")),
            request=_c(
                r"^(?:tu peux|peux-tu|pourrais-tu|vous pouvez|pouvez-vous|stp|s'il te plaît|écris|fais|"
                r"aide|donne|explique|montre)\b"
            ),
        ),
        "es": Words(
            labels=_labels(
                warning="cuidado|atención|ojo|aviso|importante",
                decision="decisión|decidido",
                preference="regla|norma|preferencia",
                playbook="pasos|procedimiento|checklist",
            ),
            decision=_c(
                _w(
                    r"(?:hemos|he) decidido|decidimos|decidí|elegimos|elegí|optamos|opté|"
                    r"nos quedamos con|nos vamos a quedar con|me quedo con|vamos con|vamos a ir con|"
                    r"(?:nos )?pasamos a|nos decantamos|está decidido|queda decidido"
                )
            ),
            caution=_c(
                _w(
                    r"cuidado|ojo con|ojito|atención|ni se te ocurra|"
                    r"bajo ningún concepto|nunca jamás|no (?:se )?(?:debe|debes|deben)"
                )
            ),
            prohibit=_c(_w(r"nunca|jamás|no")),
            otherwise=_c(r"\bsi no,|\bde lo contrario\b|\bporque si no\b|\bque si no\b"),
            moment=_c(_w(r"cuando|mientras|antes de|durante|en producción|en prod")),
            standing=_c(
                _w(
                    r"siempre|nunca|jamás|a partir de ahora|de ahora en adelante|desde ahora|en adelante|"
                    r"por defecto"
                )
            ),
            reported=_c(
                _w(
                    r"(?:casi|no) siempre|siempre (?:me|se|pasa|falla|está)|"
                    r"nunca (?:he|ha|había|funcion\w*)"
                )
            ),
            prefer=_c(_w(r"prefiero|preferimos|prefiere|prefieren|me gusta|no me gusta|odio")),
            remember=_c(
                _w(
                    r"recuerda|recuérdalo|acuérdate|no olvides|apúntalo|apúntate|apunta|anota|anótalo|"
                    r"anótate|ten en cuenta|para que lo sepas|guárdalo|guárdatelo|guarda"
                )
            ),
            adopt=_adopt(
                r"apunta\w*|apúnta\w*|anota\w*|guarda\w*|guárda\w*", r"pasos|procedimiento|proceso|checklist"
            ),
            sequence=_steps(
                r"primero|lo primero|antes que nada", r"luego|después|entonces|al final|por último"
            ),
            problem=_c(_w(r"error\w*|falla|fallo|no funciona|no va|roto|se cae|se cuelga|bug")),
            request=_c(r"^(?:puedes|podrías|me ayudas|ayúdame|por favor|haz|escribe|dime|explica|dame)\b"),
        ),
        "pt": Words(
            labels=_labels(
                warning="cuidado|atenção|aviso|importante",
                decision="decisão|decidido",
                preference="regra|preferência",
                playbook="passos|procedimento|checklist",
            ),
            decision=_c(
                _w(
                    r"decidimos|decidi|escolhemos|escolhi|optamos|optei|vamos (?:de|com)|"
                    r"vamos ficar com|ficamos com|fechamos com|batemos o martelo|está decidido|ficou decidido"
                )
            ),
            caution=_c(
                _w(
                    r"cuidado|atenção|de jeito nenhum|nem pensar|"
                    r"não (?:se )?(?:deve|pode)"
                )
            ),
            prohibit=_c(_w(r"nunca|não|jamais|proibido")),
            otherwise=_c(_w(r"senão|se não|caso contrário|do contrário")),
            moment=_c(_w(r"quando|enquanto|antes de|durante|em produção|em prod")),
            standing=_c(
                _w(
                    r"sempre|nunca|jamais|a partir de agora|daqui (?:pra|para) frente|de agora em diante|"
                    r"por padrão"
                )
            ),
            reported=_c(
                _w(r"(?:quase|nem) sempre|sempre (?:me|dá|falha|trava|acontece)|nunca (?:funcion\w*|deu)")
            ),
            prefer=_c(_w(r"prefiro|preferimos|prefere|preferem|gosto de|não gosto|odeio")),
            remember=_c(
                _w(
                    r"lembra|lembre|lembre-se|não esquece|não esqueça|anota|anote|guarda|guarde|grava|grave|"
                    r"pra você saber|fica a dica"
                )
            ),
            adopt=_adopt(
                r"anota\w*|guarda\w*|salva\w*|grava\w*",
                r"passo a passo|passos|procedimento|processo|checklist|roteiro",
            ),
            sequence=_steps(
                r"primeiro|antes de tudo|em primeiro lugar", r"depois|em seguida|então|por fim|no final"
            ),
            problem=_c(_w(r"erro\w*|falha|não funciona|quebrou|travou|trava|bug|deu ruim")),
            request=_c(r"^(?:pode|poderia|você pode|me ajuda|por favor|faz|escreve|explica|me dá|me diz)\b"),
        ),
        "it": Words(
            labels=_labels(
                warning="attenzione|avviso|importante",
                decision="decisione|deciso",
                preference="regola|convenzione|preferenza",
                playbook="passaggi|procedura|checklist",
            ),
            decision=_c(
                _w(
                    r"abbiamo deciso|ho deciso|abbiamo scelto|ho scelto|(?:abbiamo |ho )?optato|"
                    r"andiamo (?:con|su)|restiamo su|passiamo a|ci siamo accordati|è deciso"
                )
            ),
            caution=_c(
                _w(
                    r"attenzione|attento|attenta|attenti|occhio a|occhio che|"
                    r"mai e poi mai|non (?:si )?(?:deve|devi|bisogna)"
                )
            ),
            prohibit=_c(_w(r"mai|non|vietato")),
            otherwise=_c(_w(r"altrimenti|sennò|se no")),
            moment=_c(_w(r"quando|mentre|prima di|durante|in produzione|in prod")),
            standing=_c(
                _w(r"sempre|mai|d'ora in poi|da ora in poi|da adesso in poi|in futuro|di default|per default")
            ),
            reported=_c(_w(r"(?:quasi|non) sempre|sempre (?:mi|si|lo stesso)|mai (?:funzionat\w*|visto)")),
            prefer=_c(_w(r"preferisco|preferiamo|preferisce|preferiscono|mi piace|non mi piace|odio")),
            remember=_c(
                _w(
                    r"ricorda|ricordati|ricordatelo|non dimenticare|segna|segnalo|segnatelo|annota|annotalo|"
                    r"tieni (?:a mente|presente)|per la cronaca|memorizza"
                )
            ),
            adopt=_adopt(
                r"segna\w*|annota\w*|salva\w*|tieni", r"procedura|passaggi|passi|checklist|istruzioni"
            ),
            sequence=_steps(r"prima|innanzitutto|per prima cosa", r"poi|dopo|quindi|infine|alla fine"),
            problem=_c(_w(r"errore|errori|non funziona|non va|rotto|crasha|bug|si blocca|si pianta")),
            request=_c(r"^(?:puoi|potresti|mi aiuti|aiutami|per favore|fai|scrivi|spiega|dammi|dimmi)\b"),
        ),
        "ru": Words(
            labels=_labels(
                warning="внимание|осторожно|важно",
                decision="решение|решено",
                preference="правило",
                playbook="шаги|инструкция|порядок",
            ),
            decision=_c(
                _w(
                    r"решили|решил|решила|решено|выбрали|выбрал|выбрала|остановились на|"
                    r"останавливаемся на|берём|берем|переходим на|перешли на|договорились|"
                    r"остаёмся на|остаемся на"
                )
            ),
            caution=_c(
                _w(
                    r"осторожно|аккуратно|аккуратнее|внимание|ни в коем случае|ни за что|"
                    r"будь(?:те)? осторожн\w*|нельзя"
                )
            ),
            prohibit=_c(_w(r"не|никогда|запрещено")),
            otherwise=_c(_w(r"иначе|а то|не то")),
            moment=_c(_w(r"когда|пока|во время|перед|на проде|на продакшене|на стейдже|в проде")),
            standing=_c(_w(r"всегда|никогда|впредь|отныне|с этого момента|по умолчанию")),
            reported=_c(
                _w(r"всегда (?:так|было|падает|ломается)|никогда не (?:работал\w*|получал\w*|видел\w*)")
            ),
            prefer=_c(_w(r"предпочитаю|предпочитаем|предпочтительно|мне нравится|не люблю|люблю|ненавижу")),
            remember=_c(_w(r"запомни|запиши|имей в виду|учти|не забудь|для справки|на будущее|к сведению")),
            adopt=_adopt(
                r"запиши|сохрани|запомни", r"инструкци\w+|порядок|шаги|чек-?лист|алгоритм|процедур\w+"
            ),
            sequence=_steps(r"сначала|сперва|для начала", r"потом|затем|после этого|в конце|дальше"),
            problem=_c(_w(r"ошибк\w*|не работает|сломал\w*|падает|упал\w*|глючит|баг\w*|зависает")),
            request=_c(r"^(?:напиши|сделай|помоги|подскажи|объясни|покажи|дай|можешь|можете|пожалуйста)\b"),
        ),
        "ja": Words(
            labels=_cjk_labels(warning="注意|警告", decision="決定", preference="ルール", playbook="手順"),
            decision=_c(
                r"決めた|決めました|決定し|に決め|に決ま|にしました|にします|にすることに|で行きます|でいきます|"
                r"で行く|でいく|を採用|採用する|採用し|を選んだ|を選びました|に統一|に乗り換え"
            ),
            caution=_c(
                r"注意して|要注意|気をつけ|気を付け|絶対に?(?:しない|やらない|だめ|ダメ)|"
                r"てはいけない|ちゃいけない|てはならない|ちゃだめ|ちゃダメ|じゃだめ|じゃダメ|禁止|ハマった|"
                r"落とし穴|痛い目|二度と"
            ),
            prohibit=_c(r"しない|ないで|だめ|ダメ|禁止"),
            otherwise=_c(r"さもないと|そうしないと|でないと"),
            moment=_c(r"ときは|時は|中に|間は|前に|本番で|本番環境で"),
            standing=_c(r"常に|必ず|今後|これからは|以降は|次回から|次から|基本的に|デフォルトで"),
            reported=_c(r"いつも(?:落ち|失敗|エラー|忘れ|遅れ)"),
            prefer=_c(r"好き|嫌い|好み|の方がいい|のほうがいい|派です|苦手"),
            remember=_c(
                r"覚えて|覚えと|忘れないで|メモして|メモっと|メモしておいて|控えて|記録して|参考までに"
            ),
            adopt=_adopt(
                r"保存|メモ|残して|まとめて|覚えて", r"手順|チェックリスト|やり方|流れ", spaced=False
            ),
            sequence=_steps(r"まず", r"次に|それから|その後|最後に", spaced=False),
            problem=_c(r"エラー|動かない|落ちる|落ちた|失敗|バグ|おかしい|効かない"),
            request=_c(r"(?:てください|て下さい|てくれ|教えて|お願いします?)[。！!]?$"),
        ),
        "ko": Words(
            labels=_cjk_labels(warning="주의|경고", decision="결정", preference="규칙", playbook="절차|순서"),
            decision=_c(
                r"결정했|결정함|정했|하기로 했|하기로 함|기로 했|로 했어|으로 했어|로 결정|으로 결정|"
                r"로 하자|으로 하자|로 갈게|로 가자|로 가기로|선택했|채택|로 정함|으로 정함"
            ),
            caution=_c(
                r"조심|주의|절대 (?:하지|안|금지|마)|면 안 ?돼|면 안 ?됩니다|하지 마|말아야|피해야|"
                r"금지|큰일 ?나|다시는"
            ),
            prohibit=_c(r"하지 마|말고|안 돼|금지"),
            otherwise=_c(r"안 그러면|그렇지 않으면"),
            moment=_c(r"때는|동안|중에|전에|운영에서|프로덕션에서|운영 서버에서"),
            standing=_c(r"항상|언제나|앞으로는|앞으로|이제부터|무조건|매번|기본으로|기본적으로"),
            reported=_c(r"(?:항상|늘) (?:그렇|똑같|실패|에러)"),
            prefer=_c(r"선호|좋아해|좋아합니다|싫어해|싫어요|편해요"),
            remember=_c(
                r"기억해|기억해 ?줘|기억해 ?주세요|기억해 ?두|잊지 마|메모해|적어 ?둬|적어 ?줘|참고로|"
                r"알아 ?둬|알아 ?두세요"
            ),
            adopt=_adopt(r"저장|메모|적어|기억|정리", r"절차|순서|체크리스트|방법|과정", spaced=False),
            sequence=_steps(r"먼저|우선|일단", r"그 ?다음|다음에|그리고 나서|그 후|마지막으로", spaced=False),
            problem=_c(r"에러|오류|실패|버그|작동 안|먹통|깨져"),
            request=_c(r"(?:해 ?주세요|해 ?줘|해줄래|알려 ?줘|알려 ?주세요|추천 ?좀|부탁)[.!?~ㅠㅜ]*$"),
        ),
    }


_BY_SCRIPT = {"cyrillic": "ru", "kana": "ja", "hangul": "ko"}


def language_of(text: str) -> str | None:
    """The language `text` is in, as far as its letters and function words tell ("en",
    "zh", "de", "ja" ...; None when they do not)."""
    found = fusion.script(text)
    if found == "latin":
        return language.latin_language(text)
    if found == "han":
        return "zh"
    return _BY_SCRIPT.get(found or "")


def said_at(text: str) -> list[tuple[int, int]]:
    """Where `text` states a type in its language's words ("retiens-le", "ojito", "passt
    auf", 참고로): (start, end) stretches, in order, none overlapping. Those words say what kind of memory it
    is, not what it is about, so they are no keyword there (memoryd.keyterms), as English's
    "remember" and "careful" are not; the same word elsewhere in the text still may be
    ("die Wahl fällt auf X" against "die Wahl"). Words of danger (giftig, peligroso, опасно)
    are left out of the lists: they are often what a memory is about."""
    lex = words(language_of(text))
    if lex is None:
        return []
    found: list[tuple[int, int]] = []
    kinds = (lex.decision, lex.caution, lex.otherwise, lex.standing, lex.prefer, lex.remember)
    for pattern in (*(p for _, p in lex.labels), *kinds):
        for m in pattern.finditer(text):
            rest = _REST.match(text, m.end())  # the whole word it ends in: retiens(-le)
            found.append((m.start(), rest.end() if rest else m.end()))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):  # overlapping matches as one stretch, for a bisect
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


_REST = re.compile(r"(?:-[^\W\d_]+)+")


def words(lang: str | None) -> Words | None:
    """The cue words of a language this module holds (None for English and Chinese, which
    memoryd.llm.cues reads itself, and for any other)."""
    return _table().get(lang) if lang else None

"""The words other languages state a memory's type with, as memoryd.llm.cues holds
English's and Chinese's. German, French, Spanish, Portuguese, Italian, Russian, Japanese
and Korean each get the same kinds: a label the writer put first ("Achtung:", "注意："),
the act of choosing (entschieden, on part sur, 決めた, 하기로 했어), caution (Vorsicht,
ojo con, нельзя, 気をつけて, 조심) and "or else" (sonst, sinon), a standing rule (immer,
désormais, 今後, 앞으로), a taste (lieber, prefiero) and being asked to keep something
(merk dir, retiens, 覚えておいて).

memoryd.keyterms keeps them out of keywords: they say what kind of memory it is, not what
it is about (said_at). They do not type sessions: the learned classifier
(memoryd.llm.typeclf) does that for these languages, from the embeddings. Read as cues,
these words raised type accuracy on the ml set they were written against (63.9% -> 77.8%)
and lowered it on ml2 and ml3, written blind (64.6% -> 58.3%, 72.9% -> 68.8%;
bench/proposal_quality.py); that reading also used words for how-tos, steps, problems and
requests, left out here since nothing reads them.

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
    otherwise: re.Pattern[str]
    standing: re.Pattern[str]
    prefer: re.Pattern[str]
    remember: re.Pattern[str]


def _w(words: str) -> str:
    """Alternatives of whole words (Latin and Cyrillic scripts)."""
    return r"\b(?:" + words + r")\b"


def _labels(**by_type: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((t, re.compile(rf"^(?:{w})\b[^:：]{{0,30}}[:：]", _I)) for t, w in by_type.items())


def _cjk_labels(**by_type: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((t, re.compile(rf"^(?:{w})[^:：]{{0,8}}[:：]")) for t, w in by_type.items())


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
            otherwise=_c(_w(r"sonst|andernfalls|ansonsten")),
            standing=_c(
                _w(
                    r"immer|nie|niemals|stets|grundsätzlich|ab jetzt|ab sofort|von jetzt an|künftig|"
                    r"zukünftig|in zukunft|ab heute|standardmäßig"
                )
            ),
            prefer=_c(_w(r"lieber|bevorzuge|bevorzugen|bevorzugt|am liebsten|ich mag|mag ich|per default")),
            remember=_c(
                _w(
                    r"merk dir|merke dir|merken|nicht vergessen|vergiss nicht|denk dran|denk daran|"
                    r"zur info|fürs protokoll|notier|notiere|notieren|notiert"
                )
            ),
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
            otherwise=_c(_w(r"sinon|autrement|sans quoi|faute de quoi")),
            standing=_c(
                _w(
                    r"toujours|jamais|désormais|dorénavant|à partir de maintenant|à l'avenir|"
                    r"systématiquement|par défaut"
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
            otherwise=_c(r"\bsi no,|\bde lo contrario\b|\bporque si no\b|\bque si no\b"),
            standing=_c(
                _w(
                    r"siempre|nunca|jamás|a partir de ahora|de ahora en adelante|desde ahora|en adelante|"
                    r"por defecto"
                )
            ),
            prefer=_c(_w(r"prefiero|preferimos|prefiere|prefieren|me gusta|no me gusta|odio")),
            remember=_c(
                _w(
                    r"recuerda|recuérdalo|acuérdate|no olvides|apúntalo|apúntate|apunta|anota|anótalo|"
                    r"anótate|ten en cuenta|para que lo sepas|guárdalo|guárdatelo|guarda"
                )
            ),
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
            otherwise=_c(_w(r"senão|se não|caso contrário|do contrário")),
            standing=_c(
                _w(
                    r"sempre|nunca|jamais|a partir de agora|daqui (?:pra|para) frente|de agora em diante|"
                    r"por padrão"
                )
            ),
            prefer=_c(_w(r"prefiro|preferimos|prefere|preferem|gosto de|não gosto|odeio")),
            remember=_c(
                _w(
                    r"lembra|lembre|lembre-se|não esquece|não esqueça|anota|anote|guarda|guarde|grava|grave|"
                    r"pra você saber|fica a dica"
                )
            ),
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
            otherwise=_c(_w(r"altrimenti|sennò|se no")),
            standing=_c(
                _w(r"sempre|mai|d'ora in poi|da ora in poi|da adesso in poi|in futuro|di default|per default")
            ),
            prefer=_c(_w(r"preferisco|preferiamo|preferisce|preferiscono|mi piace|non mi piace|odio")),
            remember=_c(
                _w(
                    r"ricorda|ricordati|ricordatelo|non dimenticare|segna|segnalo|segnatelo|annota|annotalo|"
                    r"tieni (?:a mente|presente)|per la cronaca|memorizza"
                )
            ),
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
            otherwise=_c(_w(r"иначе|а то|не то")),
            standing=_c(_w(r"всегда|никогда|впредь|отныне|с этого момента|по умолчанию")),
            prefer=_c(_w(r"предпочитаю|предпочитаем|предпочтительно|мне нравится|не люблю|люблю|ненавижу")),
            remember=_c(_w(r"запомни|запиши|имей в виду|учти|не забудь|для справки|на будущее|к сведению")),
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
            otherwise=_c(r"さもないと|そうしないと|でないと"),
            standing=_c(r"常に|必ず|今後|これからは|以降は|次回から|次から|基本的に|デフォルトで"),
            prefer=_c(r"好き|嫌い|好み|の方がいい|のほうがいい|派です|苦手"),
            remember=_c(
                r"覚えて|覚えと|忘れないで|メモして|メモっと|メモしておいて|控えて|記録して|参考までに"
            ),
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
            otherwise=_c(r"안 그러면|그렇지 않으면"),
            standing=_c(r"항상|언제나|앞으로는|앞으로|이제부터|무조건|매번|기본으로|기본적으로"),
            prefer=_c(r"선호|좋아해|좋아합니다|싫어해|싫어요|편해요"),
            remember=_c(
                r"기억해|기억해 ?줘|기억해 ?주세요|기억해 ?두|잊지 마|메모해|적어 ?둬|적어 ?줘|참고로|"
                r"알아 ?둬|알아 ?두세요"
            ),
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

"""The report's sentences, in Chinese (``zh``) and English (``en``): key: (zh, en).

Templates hold ``{name}`` placeholders (``digest.i18n.catalog`` fills them). The variant for
one thing lives under ``<key>.one``.
"""

from __future__ import annotations

from collections.abc import Mapping

PHRASES: Mapping[str, tuple[str, str]] = {
    # report frame
    "report.title": ("{name} 开发动态报告 - {date}", "{name} Development Report - {date}"),
    "report.window": ("时间窗口", "Window"),
    "report.counts": ("统计", "Counts"),
    "footer.writers": ("撰写", "Written by"),
    "footer.generated": ("生成于", "Generated"),
    "footer.synced": ("数据同步于", "Data synced"),
    "footer.never_synced": ("未同步", "not synced"),
    "footer.tokens": ("Token 用量", "Tokens"),
    "footer.notes": ("说明", "Notes"),
    "footer.source": ("数据来源", "Source"),
    "footer.fallbacks": ("模板回退", "Template fallbacks"),
    # a model-written text that fell back to the template (digest.llm.reasons)
    "fallback.note": (
        "{title}：{why}，本节由模板生成",
        "{title}: {why}; this section was written from the data",
    ),
    "fallback.timeout": ("模型超时", "the model timed out"),
    "fallback.rate_limited": ("模型服务限流", "the model server is rate limited"),
    "fallback.server_error": ("模型服务出错", "the model server failed"),
    "fallback.unreachable": ("无法连接模型服务", "the model server is unreachable"),
    "fallback.rejected": ("模型服务拒绝了请求", "the model server rejected the request"),
    "fallback.budget": ("token 预算已用完", "the token budget was spent"),
    "fallback.refused": ("模型拒绝回答", "the model declined"),
    "fallback.not_json": ("模型输出无法解析", "the model's answer did not parse"),
    "fallback.truncated": ("模型输出被截断", "the model's answer was cut off"),
    "fallback.empty": ("模型输出为空", "the model's answer was empty"),
    "fallback.schema": ("模型输出格式不符", "the model's answer did not match the expected shape"),
    "fallback.ungrounded": (
        "模型引用了数据中不存在的条目或用户",
        "the model cited items or people not in the data",
    ),
    "fallback.echo": (
        "模型照抄了提示中的格式或指令",
        "the model echoed the prompt's format or instructions",
    ),
    "fallback.language": ("模型输出语言不符", "the model wrote in the wrong language"),
    "fallback.counts": ("模型未如实给出统计数字", "the model did not state the window's counts"),
    "fallback.cites": ("模型未引用所给条目", "the model cited none of the items it was given"),
    "fallback.participants": (
        "模型未写出讨论参与者",
        "the model did not name the discussions' participants",
    ),
    "fallback.length": ("模型输出长度不合适", "the model's answer was too short or too long"),
    "common.none": ("无", "None"),
    "common.more": ("……另有 {n} 条", "… and {n} more"),
    "common.sep": ("、", ", "),
    "common.and": ("、", " and "),
    "common.quote": ("“{text}”", "“{text}”"),
    "common.colon": ("：", ": "),
    "common.full_stop": ("。", ". "),
    "common.paren": ("（{text}）", " ({text})"),
    "common.author": ("作者", "author"),
    # the labels of a section the model wrote (digest.writers.llm.blocks)
    "label.takeaway": ("小结", "Takeaway"),
    "label.core_issue": ("核心问题", "Core issue"),
    "label.viewpoints": ("各方观点", "Viewpoints"),
    "label.contention": ("争议焦点", "Point of contention"),
    "label.status": ("当前状态", "Status"),
    "label.impact": ("影响", "Impact"),
    # item states
    "state.pr.merged": ("已合并", "merged"),
    "state.pr.open": ("待合并", "open"),
    "state.pr.draft": ("草稿", "draft"),
    "state.pr.closed": ("关闭未合并", "closed without merging"),
    "state.issue.open": ("待解决", "open"),
    "state.issue.completed": ("已解决", "resolved"),
    "state.issue.not_planned": ("不计划处理", "closed as not planned"),
    "state.issue.duplicate": ("重复关闭", "closed as a duplicate"),
    "state.issue.closed": ("已关闭", "closed"),
    # summary
    "summary.volume": (
        "本时段（{span}）新增 {new_issues}、关闭 {closed_issues} 个；新开 {new_prs}，"
        "合并 {merged} 个，另有 {unmerged} 个未合并即关闭。",
        "This window ({span}) saw {new_issues} opened and {closed_issues} closed, and "
        "{new_prs} opened, {merged} merged and {unmerged} closed without merging.",
    ),
    "summary.volume_all_merged": (
        "本时段（{span}）新增 {new_issues}、关闭 {closed_issues} 个；新开 {new_prs}，"
        "合并 {merged} 个。",
        "This window ({span}) saw {new_issues} opened and {closed_issues} closed, and "
        "{new_prs} opened and {merged} merged.",
    ),
    "summary.empty": (
        "本时段（{span}）没有任何 Issue 或 PR 活动。",
        "There was no issue or pull request activity in this window ({span}).",
    ),
    "summary.focus": ("讨论主要集中在{terms}。", "Activity centred on {terms}."),
    "summary.theme": (
        "本时段的主线是{areas}：{items}都与之相关。",
        "The story of this window is {areas}: {items} all bear on it.",
    ),
    "summary.theme.one": (
        "本时段的主线是{areas}，集中体现在 {items}。",
        "The story of this window is {areas}, centred on {items}.",
    ),
    "summary.topic": (
        "{topic}相关动态 {n_items}（{groups}）。",
        "There were {n} {topic} items ({groups}).",
    ),
    "summary.topic.one": (
        "{topic}相关动态 {n_items}（{groups}）。",
        "There was 1 {topic} item ({groups}).",
    ),
    "summary.topic_none": (
        "本时段没有{topic}相关动态。",
        "There were no {topic} items in this window.",
    ),
    "summary.merges": ("重点合并包括 {items}。", "Notable merges include {items}."),
    "summary.merges.one": ("重点合并是 {items}。", "The most notable merge is {items}."),
    "summary.hot": (
        "讨论最热烈的是 {item}（窗口内 {n_comments}，{n_people}）。",
        "The liveliest discussion was {item} ({n_comments} in the window from {n_people}).",
    ),
    "summary.watch": (
        "另有 {n_items}未解决问题值得关注，详见“值得关注的问题”。",
        "{n_items} still open deserve attention (see Worth watching).",
    ),
    "summary.watch.one": (
        "另有 {n_items}未解决问题值得关注，详见“值得关注的问题”。",
        "{n_items} still open deserves attention (see Worth watching).",
    ),
    "summary.term": ("{term}（{n_items}）", "{term} ({n_items})"),
    "summary.group": ("{group} {n_items}", "{n} in {group}"),
    # topic section
    "topic.intro": (
        "本时段共有 {n_items}与 {topic}相关的 Issue/PR，按方向分组如下。",
        "This window has {n} {topic} items, grouped by area below.",
    ),
    "topic.intro.one": (
        "本时段共有 {n_items}与 {topic}相关的 Issue/PR。",
        "This window has 1 {topic} item.",
    ),
    "topic.empty": (
        "本时段没有与 {topic}相关的 Issue 或 PR。",
        "This window has no {topic} items.",
    ),
    "topic.entry": ("{item}（{state}，{author}）：{what}", "{item} ({state}, {author}): {what}"),
    "topic.takeaway": (
        "小结：{topic}方向本时段共 {n_items}动态，其中{groups}；{status}。",
        "Takeaway: {n} {topic} items ({groups}); {status}.",
    ),
    "topic.takeaway.one": (
        "小结：{topic}方向本时段共 {n_items}动态，其中{groups}；{status}。",
        "Takeaway: 1 {topic} item ({groups}); {status}.",
    ),
    "topic.org": (
        "其中 {n_items}由 {org} 贡献者提交（{rule}）。",
        "{n} of them came from {org} contributors ({rule}).",
    ),
    "topic.org.one": (
        "其中 {n_items}由 {org} 贡献者提交（{rule}）。",
        "1 of them came from an {org} contributor ({rule}).",
    ),
    "topic.org_none": (
        "本时段没有识别出由 {org} 贡献者提交的条目（{rule}）。",
        "None came from a recognised {org} contributor ({rule}).",
    ),
    "topic.org_rule": ("按登录名识别：{patterns}", "recognised by login: {patterns}"),
    "topic.org_suffix": ("含 {s} 后缀", "the {s} suffix"),
    "topic.org_prefix": ("以 {s} 开头", "the {s} prefix"),
    "topic.org_listed": ("{n} 个列出的账号", "{n} listed accounts"),
    "topic.org_profile": (
        "；{n} 位按 GitHub 资料中的公司识别",
        "; {n} by the company on their GitHub profile",
    ),
    "topic.merged": ("{n} 个 PR 已合并", "{n} merged"),
    "topic.closed": ("{n} 条已关闭", "{n} closed"),
    "topic.open": ("{n} 条仍在进行中", "{n} still open"),
    "topic.follow": ("最值得跟进的是 {item}。", "The one to follow is {item}."),
    "topic.landed": (
        "最重要的落地变更是 {item}。",
        "The most significant landed change is {item}.",
    ),
    # the kind of an item (digest.analysis.kinds)
    "kind.revert": ("回退此前的改动", "reverts an earlier change"),
    "kind.docs": ("文档更新", "a documentation change"),
    "kind.ci": ("CI 与构建调整", "a CI and build change"),
    "kind.deps": ("依赖版本调整", "a dependency update"),
    "kind.perf": ("性能优化", "a performance improvement"),
    "kind.refactor": ("代码重构", "a refactoring"),
    "kind.fix": ("缺陷修复", "a bug fix"),
    "kind.feature": ("新增功能", "a new feature"),
    "kind.rfc": ("设计提案", "a design proposal (RFC)"),
    "kind.bug": ("缺陷报告", "a bug report"),
    "kind.perf_report": ("性能问题报告", "a performance report"),
    "kind.feature_request": ("功能需求", "a feature request"),
    "kind.question": ("使用问题", "a usage question"),
    # an item described from its facts: kind, areas, names, numbers
    "describe.areas": ("，涉及{areas}", ", in {areas}"),
    "describe.names": ("（{names}）", " ({names})"),
    "describe.code": ("；关键标识：{code}", "; key identifier: {code}"),
    "describe.numbers": ("；描述给出的数据：{numbers}", "; reported figures: {numbers}"),
    "describe.end": ("。", "."),
    # the impact of a change, by its kind
    "effect.revert": ("撤回有问题的改动，恢复此前的行为", "undoes a problematic change"),
    "effect.docs": ("让文档与当前行为保持一致", "keeps the documentation in line"),
    "effect.ci": ("提升 CI 与构建的稳定性", "keeps CI and builds reliable"),
    "effect.deps": ("保持依赖版本一致、减少兼容性问题", "keeps dependencies consistent"),
    "effect.perf": ("直接提升{areas}的性能", "makes {areas} faster"),
    "effect.refactor": ("为{areas}的后续改动理清结构", "prepares {areas} for later work"),
    "effect.fix": ("消除{areas}上的已知问题，提升稳定性", "removes a known problem in {areas}"),
    "effect.feature": ("为{areas}带来新的能力或支持", "brings new capability to {areas}"),
    "effect.nowhere": ("相关代码路径", "the code it touches"),
    # people: the role a person plays where the report names them, and their organisation
    "role.maintainer": ("维护者", "maintainer"),
    "role.reporter": ("问题报告者", "reporter"),
    "role.author": ("PR 作者", "PR author"),
    "role.reviewer": ("评审者", "reviewer"),
    "role.community": ("社区成员", "community member"),
    "people.tag": ("{role}，{org}", "{role}, {org}"),
    "people.after": ("{user}（{tag}）", "{user} ({tag})"),
    "people.before": ("{role} {user}", "{role} {user}"),
    "people.before_org": ("{role} {user}，{org}", "{role} {user}, {org}"),
    # hot discussions
    "hot.title": ("{rank} {item}", "{rank} {item}"),
    "hot.meta": (
        "{state}，窗口内 {n_comments}，{n_people}",
        "{state}; {n_comments} in the window from {n_people}",
    ),
    "hot.core": ("核心问题：{what}", "Core issue: {what}"),
    "hot.view": (
        "{user}（{tag}，{n_comments}）：{act}{about}{quote}。",
        "{user} ({tag}, {n_comments}) {act}: {quote}",
    ),
    "hot.view_bare": (
        "{user}（{tag}，{n_comments}）：{act}{about}。",
        "{user} ({tag}, {n_comments}) {act}.",
    ),
    "hot.quote_zh": ("——{quote}", "{quote}"),
    "hot.about": ("，涉及{terms}", "{terms}"),
    "hot.contention": (
        "争议焦点：{user}提出不同意见{about}{quote}。",
        "Point of contention: {user} pushes back: {quote}",
    ),
    "hot.question": (
        "待解决的问题：{user}的{act}尚无他人回复{about}{quote}。",
        "Open question from {user}, not answered yet: {quote}",
    ),
    "hot.agreement": (
        "争议焦点：暂无明显分歧，讨论以补充信息和同步进展为主。",
        "Point of contention: no clear disagreement; the thread mostly adds information.",
    ),
    "hot.status": ("当前状态：{state}；{status}。", "Status: {state}; {status}."),
    "status.fixed": ("问题已修复", "fixed"),
    "status.fixed_by": ("{user}表示已修复", "{user} reports it fixed"),
    "status.workaround": ("{user}给出了规避方案", "{user} found a workaround"),
    "status.cause": ("{user}已缩小问题原因", "{user} narrowed down the cause"),
    "status.waiting_reporter": (
        "等待问题报告者回复{user}的提问",
        "waiting for the reporter to answer {user}",
    ),
    "status.stuck": ("目前只有作者本人发言，尚无他人回应", "only the author has spoken so far"),
    "status.discussing": (
        "讨论仍在进行，最近的实质发言来自{user}",
        "still under discussion; last substantive word from {user}",
    ),
    "hot.boilerplate": (
        "（另有 {n} 条例行评论未计入，如 LGTM、rebase、CI 无关失败）",
        " ({n} routine comments such as LGTM, rebase or unrelated CI failure not counted)",
    ),
    # what a comment does in its thread
    "act.reproduce": ("复现确认", "confirms the reproduction"),
    "act.root_cause": ("根因分析", "analyses the cause"),
    "act.info": ("提供信息", "adds information"),
    "act.ask_info": ("请求信息", "asks for information"),
    "act.verify": ("验证结果", "reports a verification"),
    "act.solution": ("给出方案", "proposes a way forward"),
    "act.approve": ("认可", "approves"),
    "act.duplicate": ("指出重复", "points out a duplicate"),
    "hot.empty": (
        "本时段没有出现多人参与的热烈讨论（窗口内至少 2 条实质性的人工评论）。",
        "No discussion drew two or more substantive human comments in this window.",
    ),
    # trends
    "trends.intro": (
        "以下主题在本时段的多个条目中反复出现，每个主题按条目分量排序：",
        "These themes recur across several items in this window, each with its weightiest "
        "items first:",
    ),
    "trends.entry": (
        "{term}（{kind}）：{mix}，{reading}；分量最重的是 {items}",
        "{term} ({kind}): {mix}; {reading}; weightiest first: {items}",
    ),
    "trends.meaning": ("。解读：其中 {parts}{areas}。", ". Reading: {parts}{areas}."),
    "trends.meaning_areas": ("。解读：主要涉及{areas}。", ". Reading: mostly in {areas}."),
    "trends.areas": ("，主要涉及{areas}", "; mostly in {areas}"),
    "trends.blockers": (
        "{n} 条为阻塞性问题（阻塞、回归或崩溃）",
        "{n} blockers (blocking, regression or crash)",
    ),
    "trends.blockers.one": (
        "{n} 条为阻塞性问题（阻塞、回归或崩溃）",
        "1 blocker (blocking, regression or crash)",
    ),
    "trends.fixes": ("{n} 个修复 PR", "{n} fix PRs"),
    "trends.fixes.one": ("{n} 个修复 PR", "1 fix PR"),
    "trends.still_open": ("{n} 条仍未解决", "{n} still open"),
    "trends.read.landing": ("相关改动已陆续合并落地", "changes are landing"),
    "trends.read.reports": ("以尚未解决的问题报告为主", "mostly open reports"),
    "trends.read.closed": ("相关条目大多已关闭", "mostly closed already"),
    "trends.read.work": ("相关工作仍在推进", "work is under way"),
    "trends.mix": ("共 {n_items}，其中 {issues}、{prs}", "{n_items}: {issues} and {prs}"),
    "trends.merged": ("（已合并 {n} 个）", " ({n} merged)"),
    "trends.new": ("（新出现：前 7 个周期未见）", " (new: not seen in the previous 7 windows)"),
    "trends.rising": (
        "（上升：前 7 个周期平均 {avg} 条）",
        " (rising: {avg} a window on average before)",
    ),
    "trends.steady": ("（持平：前 7 个周期平均 {avg} 条）", " (steady: {avg} a window before)"),
    # follow-ups of the previous window
    "followups.intro": (
        "上一周期的高热度讨论与值得关注条目，本期进展如下：",
        "What happened to the previous window's hot and worth-watching items:",
    ),
    "followups.was.hot": ("上期热议", "hot last time"),
    "followups.was.watch": ("上期值得关注", "watched last time"),
    "followups.fixed": (
        "{item}（{was}）：已由 {by} 修复（已合并）。",
        "{item} ({was}): fixed by {by} (merged).",
    ),
    "followups.fix_proposed": (
        "{item}（{was}）：{by} 提出了修复（尚未合并）。",
        "{item} ({was}): fix proposed in {by} (open).",
    ),
    "followups.merged": ("{item}（{was}）：已合并。", "{item} ({was}): merged."),
    "followups.closed": ("{item}（{was}）：已关闭。", "{item} ({was}): closed."),
    "followups.discussed": (
        "{item}（{was}）：本期新增 {n_comments}，仍未解决。",
        "{item} ({was}): {n_comments} more in this window, still open.",
    ),
    "followups.stuck": (
        "{item}（{was}）：本期没有进展，仍未解决。",
        "{item} ({was}): no progress in this window, still open.",
    ),
    "fixes.by_merged": ("（已由 {by} 修复）", " (fixed by {by}, merged)"),
    "fixes.by_open": ("（{by} 提出了修复，尚未合并）", " (fix proposed in {by}, open)"),
    "fixes.pr": ("（修复 {items}）", " (fixes {items})"),
    "siblings.note": (
        "（与 {items} 属同一改动的不同版本）",
        " (another version of the change in {items})",
    ),
    "trends.empty": (
        "本时段没有在两个及以上条目中反复出现的模型、特性或硬件主题。",
        "No model, feature or hardware name recurs in two or more items in this window.",
    ),
    # key changes
    "changes.intro": (
        "本时段共合并 {n_prs}，以下是最重要的技术变更：",
        "{n_prs} merged in this window; the most important technical changes:",
    ),
    "changes.entry": ("{item}（{author}）：{what}", "{item} ({author}): {what}"),
    "changes.entry_bare": ("{item}（{author}）", "{item} ({author})"),
    "changes.impact": ("影响：{impact}。", "Impact: {impact}."),
    "changes.touches": ("，涉及{terms}", "; touches {terms}"),
    "changes.empty_none": ("本时段没有合并任何 PR。", "No pull request was merged in this window."),
    "changes.empty": (
        "本时段共合并 {n_prs}，均为 CI、文档、测试或依赖类改动，没有实质性的技术变更。",
        "{n_prs} merged in this window, all CI, docs, test or dependency changes; nothing "
        "substantive to highlight.",
    ),
    "impact.perf": ("性能优化", "faster or leaner serving"),
    "impact.fix": ("修复缺陷、提升稳定性", "fixes a defect and improves stability"),
    "impact.refactor": ("代码重构，为后续改动铺路", "refactoring that prepares later work"),
    "impact.support": ("新增功能或能力", "adds a feature or capability"),
    "impact.support_model": ("新增或完善模型支持", "adds or extends model support"),
    "impact.support_hardware": ("扩展硬件与平台支持", "extends hardware and platform support"),
    "impact.issue_fix": ("报告缺陷或稳定性问题", "reports a bug or stability problem"),
    "impact.issue_perf": ("性能相关的问题或需求", "a performance report or request"),
    "impact.issue_ask": ("功能需求或生态讨论", "a feature request or ecosystem discussion"),
    # activity
    "activity.people": (
        "本时段有 {n_authors}作者提交了新的 Issue 或 PR，{n_commenters}参与者发表了 {n_comments}。",
        "{n_authors} opened new issues or PRs, and {n_commenters} posted {n_comments}.",
    ),
    "activity.bots": ("另有 {n_bots}未计入。", "{n_bots} are not counted."),
    "activity.reviews": ("其中 {n_reviews}。", "Of these, {n_reviews}."),
    "activity.merge": (
        "PR 合并率 {rate}（合并 {merged} 个，关闭未合并 {unmerged} 个）。",
        "Merge rate {rate} ({merged} merged, {unmerged} closed without merging).",
    ),
    "activity.no_merge": (
        "本时段没有 PR 被合并或关闭。",
        "No pull request was merged or closed in this window.",
    ),
    "activity.review": (
        "本时段新开的 {n_prs} 中，仍有 {open} 个待审阅或合并。",
        "{open} of the {n_prs} opened in this window still await review.",
    ),
    "activity.review_none": (
        "本时段新开的 {n_prs} 均已合并或关闭。",
        "Every one of the {n_prs} opened in this window is already merged or closed.",
    ),
    "activity.review_none.one": (
        "本时段新开的 {n_prs} 已合并或关闭。",
        "The one PR opened in this window is already merged or closed.",
    ),
    "activity.stale": (
        "关闭的 {n_issues} 中，有 {stale} 个是因不计划处理或长期无活动而关闭的。",
        "{stale} of the {n_issues} closed in this window ended as not planned or stale.",
    ),
    "activity.top": (
        "最活跃的贡献者（按新开与合并的 Issue/PR 计）：{users}。",
        "Most active contributors (items opened or merged): {users}.",
    ),
    "activity.top_entry": ("{user}（{n}）", "{user} ({n})"),
    "activity.talker": ("{user}（{n_items}）", "{user} ({n_items})"),
    "activity.commenters": ("评论最积极的是 {users}。", "Most active in discussions: {users}."),
    "activity.first_time": (
        "首次贡献者：{users}，欢迎加入！",
        "First-time contributors: {users}, welcome!",
    ),
    "activity.empty": (
        "本时段没有贡献者活动。",
        "There was no contributor activity in this window.",
    ),
    # worth watching
    "watch.entry": (
        "{item}（{state}，{author}）：{reason}。",
        "{item} ({state}, {author}): {reason}.",
    ),
    "watch.empty": (
        "本时段没有需要特别关注的未解决问题。",
        "No open item stands out as needing attention in this window.",
    ),
    "reason.blocker": (
        "被标记为阻塞或高优先级，尚未解决",
        "marked as a blocker or high priority, still open",
    ),
    "reason.regression": ("报告了回归问题，尚未解决", "reports a regression and is still open"),
    "reason.crash": ("报告了崩溃或卡死，尚未解决", "reports a crash or hang and is still open"),
    "reason.heated": (
        "窗口内讨论热烈（{n_comments}），尚无结论",
        "heated discussion in the window ({n_comments}) with no resolution yet",
    ),
    "reason.accuracy": ("报告了输出错误或精度问题", "reports wrong or inaccurate output"),
    "reason.busy_bug": (
        "累计 {n_comments}，影响面可能较广",
        "{n_comments} so far, likely affecting many users",
    ),
    "reason.rfc": ("设计提案（RFC），等待社区反馈", "a design proposal (RFC) awaiting feedback"),
    "reason.release_bug": (
        "针对已发布版本报告的问题，值得尽快确认",
        "reported against a released version; worth triaging soon",
    ),
    "reason.other": ("仍未解决", "still open"),
    # appendix
    "appendix.list": ("{title}（{n}）", "{title} ({n})"),
    "appendix.entry": ("{item} — {author}", "{item} — {author}"),
    "appendix.more": ("…另有 {n} 项，完整列表：{where}", "… and {n} more; the full list: {where}"),
}

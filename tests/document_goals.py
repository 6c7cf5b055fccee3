"""A retrieval goal set over documents written for it (not the product's samples): a 20-page
English PDF (a bakery's annual report), a 10-section English DOCX (a staff handbook), a Korean
PDF (a library guide) and a Korean Markdown file (a community centre's programme).

Each question names the page (PDF) or section (DOCX, Markdown) that answers it. The questions
were written as a person would ask them, mostly in other words than the document's. Pages carry
neutral filler so that a page is as long as a real one. ``tests/test_document_goals.py`` holds
the set to its bar (the right place in the top 3 for at least 27 of them) and
``bench/documents.py`` prints top-1 and top-3.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from tests.document_kit import make_docx, make_pdf

FILLER = (
    "The team reviewed the plan at the monthly meeting and agreed the next steps.",
    "Figures in this section are rounded and may not add up exactly.",
    "More detail is available from the office on request.",
    "This part was written with help from colleagues across the company.",
    "We thank everyone who contributed their time and ideas over the period.",
    "The board will look at this area again at the end of next year.",
)
KO_FILLER = (
    "자세한 내용은 안내 데스크에 문의해 주시기 바랍니다.",
    "이 안내는 필요에 따라 바뀔 수 있습니다.",
    "이용자 여러분의 협조에 감사드립니다.",
)

REPORT_PAGES = [
    (
        "Harbour Bakery Annual Report 2025",
        "This report describes the year of Harbour Bakery, a family bakery with shops on the south coast, founded in 1987.",
    ),
    (
        "Letter from the owner",
        "It was a busy year. We opened a new shop, hired more bakers and kept our promise to bake everything on site every morning.",
    ),
    (
        "Revenue",
        "Total revenue grew 12% to $4.2 million. Wholesale bread to cafes and hotels brought in $1.1 million of that.",
    ),
    (
        "Costs",
        "Flour prices rose 18% over the year. Our total cost of ingredients was $1.3 million, up from $1.1 million.",
    ),
    (
        "Shops",
        "We now run 4 shops: Harbour Street, Old Town, Westcliff and the new Station Road shop opened in May 2025.",
    ),
    ("Staff", "We employ 41 people, 23 of them full time. Staff turnover fell to 9%, the lowest in ten years."),
    ("Training", "Every new baker completes a 6-week apprenticeship. This year 7 apprentices finished the programme."),
    (
        "Suppliers",
        "Our flour comes from Mill Lane Farm, 20 miles away. We buy butter and eggs from three local dairies.",
    ),
    ("Energy", "Electricity use fell 15% after we replaced two old deck ovens with efficient electric ovens in March."),
    ("Waste", "Unsold bread goes to the Seaside Food Bank every evening. Food waste was cut to 2% of production."),
    ("Customers", "In our yearly survey 94% of customers said they would recommend us to a friend."),
    ("Prices", "A sourdough loaf now costs $6.50 and a croissant $3.20. We raised prices once, in February."),
    ("Online orders", "Online orders for collection started in June and reached 350 orders a week by December."),
    ("Wholesale", "We deliver to 28 cafes and 5 hotels each morning with two electric vans."),
    ("Safety", "We had no reportable accidents. All staff renewed their food hygiene certificates."),
    ("Community", "We gave $12,000 to local charities and ran free baking classes for 120 school children."),
    ("Awards", "Our rye bread won a gold medal at the Regional Bread Awards in October."),
    ("Investment", "We spent $260,000 on the new shop fit-out and $90,000 on the ovens."),
    ("Risks", "The biggest risks we see are flour prices, energy costs and finding skilled bakers."),
    ("Outlook for 2026", "Next year we plan to open a fifth shop and expect revenue of about $4.6 million."),
]

HANDBOOK = [
    ("Working hours", "Bakers start at 4 am and finish at noon. Shop staff work shifts between 7 am and 7 pm."),
    (
        "Annual leave",
        "Full-time staff get 25 days of paid holiday a year plus public holidays. Up to 5 unused days carry over.",
    ),
    (
        "Sick leave",
        "Tell your manager before your shift starts. From the fourth day off sick you need a doctor's note.",
    ),
    ("Pay", "Wages are paid on the last working day of each month by bank transfer."),
    ("Expenses", "Meals on business trips are refunded up to $30 a day. Keep every receipt and claim within 60 days."),
    ("Uniform", "You get three aprons and two caps. Wear closed shoes with non-slip soles in the bakery."),
    ("Overtime", "Overtime is paid at one and a half times the normal hourly rate and must be agreed in advance."),
    ("Parental leave", "Parents can take up to 26 weeks of leave; the first 6 weeks are on full pay."),
    ("Staff discount", "Staff get 30% off everything in our shops and one free loaf at the end of each shift."),
    (
        "Raising a concern",
        "If something worries you, speak to your manager or e-mail the owner directly at owner@harbourbakery.example.",
    ),
]

LIBRARY_PAGES = [
    ("동네 도서관 이용 안내", "햇살 도서관은 주민 누구나 이용할 수 있는 공공 도서관입니다."),
    (
        "운영 시간",
        "평일은 오전 9시부터 오후 8시까지, 주말은 오전 10시부터 오후 5시까지 운영합니다. 매주 월요일은 휴관합니다.",
    ),
    ("회원 가입", "신분증을 가지고 방문하면 회원증을 바로 만들어 드립니다. 회원증 발급은 무료입니다."),
    (
        "대출과 반납",
        "한 사람이 책을 5권까지 14일 동안 빌릴 수 있습니다. 반납이 늦으면 하루에 한 권당 100원의 연체료가 있습니다.",
    ),
    ("열람실", "열람실 좌석은 모두 80석이며 노트북 사용은 2층 열람실에서만 가능합니다."),
    ("어린이 프로그램", "매주 토요일 오전 11시에 어린이를 위한 그림책 읽기 모임이 열립니다."),
]

CENTRE_MD = """# 주민센터 문화 프로그램 안내

## 요가 교실
화요일과 목요일 오전 10시에 3층 강당에서 진행합니다. 한 달 수강료는 3만 원입니다.

## 서예 교실
매주 수요일 오후 2시에 열리며, 붓과 먹은 센터에서 빌려 드립니다. 수강료는 한 달 2만 원입니다.

## 컴퓨터 기초
어르신을 위한 컴퓨터 기초 수업으로 정원은 12명입니다. 수강료는 무료입니다.

## 신청 방법
수강 신청은 매달 20일부터 25일까지 센터 1층 안내 데스크나 전화 02-555-0142로 받습니다.

## 주차
센터 주차장은 2시간까지 무료이며 그 뒤로는 10분에 500원입니다.

## 환불 규정
수업 시작 전에 취소하면 전액 환불되고, 시작 후에는 남은 횟수만큼 환불됩니다.
"""


class Goal(NamedTuple):
    question: str
    file: str
    where: int | str
    """The page number (PDF) or the section heading that answers it."""


GOALS = [
    Goal("How much did revenue grow last year?", "harbour_bakery_report.pdf", 3),
    Goal("How much money came from selling bread to cafes and hotels?", "harbour_bakery_report.pdf", 3),
    Goal("By how much did the price of flour go up?", "harbour_bakery_report.pdf", 4),
    Goal("When did the Station Road shop open?", "harbour_bakery_report.pdf", 5),
    Goal("How many people work at the bakery?", "harbour_bakery_report.pdf", 6),
    Goal("How long is the apprenticeship for new bakers?", "harbour_bakery_report.pdf", 7),
    Goal("Where does the flour come from?", "harbour_bakery_report.pdf", 8),
    Goal("How much did electricity use drop after the new ovens?", "harbour_bakery_report.pdf", 9),
    Goal("What happens to bread that is not sold?", "harbour_bakery_report.pdf", 10),
    Goal("What share of customers would recommend the bakery?", "harbour_bakery_report.pdf", 11),
    Goal("What does a sourdough loaf cost?", "harbour_bakery_report.pdf", 12),
    Goal("How many online orders a week were there by December?", "harbour_bakery_report.pdf", 13),
    Goal("How many hotels get deliveries each morning?", "harbour_bakery_report.pdf", 14),
    Goal("How much was given to charity?", "harbour_bakery_report.pdf", 16),
    Goal("Which bread won a gold medal?", "harbour_bakery_report.pdf", 17),
    Goal("How much did the new shop fit-out cost?", "harbour_bakery_report.pdf", 18),
    Goal("What revenue is expected in 2026?", "harbour_bakery_report.pdf", 20),
    Goal("What time do bakers start work?", "staff_handbook.docx", "Working hours"),
    Goal("How many days of paid holiday do I get?", "staff_handbook.docx", "Annual leave"),
    Goal("When do I need a doctor's note if I am ill?", "staff_handbook.docx", "Sick leave"),
    Goal("When are wages paid?", "staff_handbook.docx", "Pay"),
    Goal("How much can I claim for meals on a business trip?", "staff_handbook.docx", "Expenses"),
    Goal("What shoes should I wear in the bakery?", "staff_handbook.docx", "Uniform"),
    Goal("What is the overtime rate?", "staff_handbook.docx", "Overtime"),
    Goal("How many weeks of parental leave can parents take?", "staff_handbook.docx", "Parental leave"),
    Goal("What discount do staff get in the shops?", "staff_handbook.docx", "Staff discount"),
    Goal("Who do I email if something worries me at work?", "staff_handbook.docx", "Raising a concern"),
    Goal("도서관은 주말에 몇 시까지 하나요?", "햇살_도서관_안내.pdf", 2),
    Goal("도서관 쉬는 날이 언제예요?", "햇살_도서관_안내.pdf", 2),
    Goal("회원증 만들려면 뭐가 필요해요?", "햇살_도서관_안내.pdf", 3),
    Goal("책은 몇 권까지 빌릴 수 있나요?", "햇살_도서관_안내.pdf", 4),
    Goal("책을 늦게 반납하면 연체료가 얼마예요?", "햇살_도서관_안내.pdf", 4),
    Goal("노트북은 어디서 쓸 수 있어요?", "햇살_도서관_안내.pdf", 5),
    Goal("아이들 그림책 읽기 모임은 언제 있나요?", "햇살_도서관_안내.pdf", 6),
    Goal("요가 수업은 무슨 요일에 해요?", "주민센터_프로그램.md", "요가 교실"),
    Goal("서예 교실 수강료가 얼마인가요?", "주민센터_프로그램.md", "서예 교실"),
    Goal("컴퓨터 수업 정원은 몇 명이에요?", "주민센터_프로그램.md", "컴퓨터 기초"),
    Goal("수강 신청은 언제 어떻게 하나요?", "주민센터_프로그램.md", "신청 방법"),
    Goal("주차비는 얼마예요?", "주민센터_프로그램.md", "주차"),
    Goal("수업을 취소하면 돈을 돌려받을 수 있나요?", "주민센터_프로그램.md", "환불 규정"),
]


def _page(heading: str, body: str, filler: tuple[str, ...], n: int, sentences: int) -> str:
    extra = " ".join(filler[(n + i) % len(filler)] for i in range(sentences))
    return f"{heading}\n{body} {extra}"


def report_pdf(filler_sentences: int = 30) -> bytes:
    """The 20-page English PDF (about 2,000 characters a page with the default filler)."""
    return make_pdf([_page(h, b, FILLER, n, filler_sentences) for n, (h, b) in enumerate(REPORT_PAGES)])


def handbook_docx(filler_sentences: int = 40) -> bytes:
    """The 10-section English DOCX (about a page of text a section with the default filler)."""
    sections = []
    for n, (heading, body) in enumerate(HANDBOOK):
        extra = [
            " ".join(FILLER[(n + i) % len(FILLER)] for i in range(j, j + 4)) for j in range(0, filler_sentences, 4)
        ]
        sections.append((heading, [body, *extra]))
    return make_docx(sections)


def library_pdf() -> bytes:
    return make_pdf([_page(h, b, KO_FILLER, n, 6) for n, (h, b) in enumerate(LIBRARY_PAGES)])


DOCUMENTS = {
    "harbour_bakery_report.pdf": report_pdf,
    "staff_handbook.docx": handbook_docx,
    "햇살_도서관_안내.pdf": library_pdf,
    "주민센터_프로그램.md": lambda: CENTRE_MD.encode("utf-8"),
}


def write_documents(folder: Path) -> list[Path]:
    """The four documents, written into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, make in DOCUMENTS.items():
        path = folder / name
        path.write_bytes(make())
        paths.append(path)
    return paths


def rank(hits: list[dict[str, object]], goal: Goal) -> int | None:
    """1-based position of the goal's page or section among ``hits`` (None: not there)."""
    key = "page" if isinstance(goal.where, int) else "section"
    for i, hit in enumerate(hits, 1):
        if hit.get("file") == goal.file and hit.get(key) == goal.where:
            return i
    return None

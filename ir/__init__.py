"""syncopate.ir"""
